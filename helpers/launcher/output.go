package launcher

import (
	"fmt"
	"io"
	"sync"
)

// TailBytes is how much of a launcher's output goes into a message: a daemon that printed 30 MB
// must not put 30 MB into every report.
const TailBytes = 64 << 10

// TailWriter keeps the last Max bytes written to it (TailBytes when Max is 0: a launcher may
// print without end) and how much came before; safe for the writer goroutine and a reader.
type TailWriter struct {
	Max   int
	mu    sync.Mutex
	b     []byte
	total int
}

func (t *TailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += len(p)
	t.b = append(t.b, p...)
	limit := t.Max
	if limit == 0 {
		limit = TailBytes
	}
	if over := len(t.b) - limit; over > 0 {
		t.b = append(t.b[:0:0], t.b[over:]...)
	}
	return len(p), nil
}

// String is the tail, saying how much was cut before it.
func (t *TailWriter) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if cut := t.total - len(t.b); cut > 0 {
		return fmt.Sprintf("[%d bytes cut; the last %d follow]\n%s", cut, len(t.b), t.b)
	}
	return string(t.b)
}

// LogBytes is how much of a launcher process's output goes to a log (the spec's GinkgoWriter,
// which every report carries, or the CLI's own output): a daemon printing 100 MB in a passing
// spec once made report.json and junit.xml 105 MB each.
const LogBytes = 256 << 10

// Capped passes the first max bytes written to it on to w, then one line saying the rest is not
// shown, and then nothing; it always reports the whole write as done, so the writer is never
// stopped by it.
func Capped(w io.Writer, max int, whose string) io.Writer {
	return &capped{w: w, max: max, whose: whose}
}

type capped struct {
	mu        sync.Mutex
	w         io.Writer
	max, n    int
	whose     string
	announced bool
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := c.max - c.n; room > 0 {
		_, _ = c.w.Write(p[:min(room, len(p))])
	}
	c.n += len(p)
	if c.n > c.max && !c.announced {
		c.announced = true
		_, _ = fmt.Fprintf(c.w, "\n[classproof: %s printed more than %d bytes; the rest is not shown here (its last %d bytes are kept for messages)]\n", c.whose, c.max, TailBytes)
	}
	return len(p), nil
}
