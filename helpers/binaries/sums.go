package binaries

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
)

// A binary the kit runs (a suite's test binary, the ginkgo CLI, the harness) is run only while
// its bytes are the ones built: its sha256 is recorded beside it when it is built (BIN.sha256),
// or comes from a release archive's MANIFEST, and is checked when a run finds it and again right
// before and after Ginkgo runs. A launcher's build step that replaced a cached suite with one
// that writes a passing report (issue 32) then fails the run, naming the file.

// SumFile is path's sha256 in hex, as sha256sum prints it.
func SumFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// record writes bin's sha256 beside it, right after the kit built it.
func record(bin string) error {
	sum, err := SumFile(bin)
	if err != nil {
		return err
	}
	return os.WriteFile(bin+".sha256", []byte(sum+"\n"), 0o600)
}

// recorded is bin's recorded sha256, "" when none is.
func recorded(bin string) string {
	b, err := os.ReadFile(bin + ".sha256")
	if err != nil || len(b) > 80 {
		return ""
	}
	return strings.TrimSpace(string(b))
}

// forgetUnrecorded removes each of bins that has no recorded sum: it is built again (a cache from
// before the sums, or a binary whose record is gone).
func forgetUnrecorded(bins ...string) {
	for _, b := range bins {
		if b != "" && recorded(b) == "" {
			_ = os.Remove(b)
		}
	}
}

// readSums reads each binary's recorded sum into c.Sums.
func (c *Compiled) readSums() {
	c.Sums = map[string]string{}
	for _, bin := range append(append([]string(nil), c.Suites...), c.Ginkgo, c.Harness) {
		if bin != "" {
			c.Sums[bin] = recorded(bin)
		}
	}
}

// ChangedError is a binary whose bytes are not the ones recorded when it was built.
type ChangedError struct {
	Path, Want, Got string
	Removed         bool // a cached build, removed so that the next run builds it again
}

func (e *ChangedError) Error() string {
	then := "; it is part of a release archive: extract the archive again"
	if e.Removed {
		then = "; removed from the cache: the next run builds it again"
	}
	return fmt.Sprintf("%s is not the binary that was built (sha256 recorded %s, now %s): something changed it after its build, and the kit will not run it%s", e.Path, e.Want, e.Got, then)
}

// Verify checks every binary of c against its recorded sum (c.Sums) and says which changed.
func (c Compiled) Verify() error {
	var errs []error
	for _, bin := range append(append([]string(nil), c.Suites...), c.Ginkgo, c.Harness) {
		if bin == "" {
			continue
		}
		want := c.Sums[bin]
		got, err := SumFile(bin)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s, which the run built: %w", bin, err))
			continue
		}
		if want == "" || got != want {
			e := &ChangedError{Path: bin, Want: want, Got: got}
			if !c.prebuilt {
				e.Removed = os.Remove(bin) == nil
				_ = os.Remove(bin + ".sha256")
			}
			errs = append(errs, e)
		}
	}
	return errors.Join(errs...)
}
