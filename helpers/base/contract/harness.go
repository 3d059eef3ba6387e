package contract

// HarnessReport is what the fixture harness writes to its --report file and the kit reads back
// (helpers/launcher): the harness's pid and each tool it started. It is a claim the kit checks
// against the kernel, never trusted as written. It sits in the contract, beside the environment
// the two share, so that the harness links none of the driver.
type HarnessReport struct {
	HarnessPid int `json:"harness_pid"`
	// HarnessStart and HarnessTool.Start are the kernel's start times (helpers/base/proctable):
	// the kit reads the pids back from this file later, and a pid whose start time has changed by
	// then is someone else's.
	HarnessStart uint64        `json:"harness_start"`
	Tools        []HarnessTool `json:"tools"`
}

// HarnessTool is one child the harness started.
type HarnessTool struct {
	Pid   int    `json:"pid"`
	Start uint64 `json:"start"`
}
