// Package probeio is the wire between `probe iofg` (fixtures/probe) and `classproof bench --io`:
// the foreground's I/O latencies as the probe prints them and the bench reads them, one type.
package probeio

// Readings is what `probe iofg` writes: the foreground's latency per operation, in ms.
type Readings struct {
	Reads    int     `json:"reads"`
	Writes   int     `json:"writes"`
	ReadP50  float64 `json:"read_p50_ms"`
	ReadP95  float64 `json:"read_p95_ms"`
	ReadMax  float64 `json:"read_max_ms"`
	WriteP50 float64 `json:"write_p50_ms"`
	WriteP95 float64 `json:"write_p95_ms"`
	WriteMax float64 `json:"write_max_ms"`
	DirectIO bool    `json:"direct_io"` // reads bypassed the page cache
}
