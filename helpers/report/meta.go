package report

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/base/limits"
)

// Fence puts text inside a Markdown code fence that no line of it can close: a fence of
// backticks longer than the longest run of backticks in the text (CommonMark 0.31, 4.5: a
// closing fence must be at least as long as the opening one). Launcher output goes into step
// summaries and receipts this way.
func Fence(text string) string {
	f := strings.Repeat("`", max(3, longestTicks(text)+1))
	return f + "\n" + strings.TrimRight(text, "\n") + "\n" + f + "\n"
}

// longestTicks is the longest run of backticks in text: a fence or a code span of more cannot be
// closed from inside.
func longestTicks(text string) int {
	longest, run := 0, 0
	for _, r := range text {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return longest
}

// Code is text as one Markdown code span, safe inline (a list item; never a table cell, where
// GitHub splits on a pipe even inside code): newlines become spaces, and the fence is longer than
// any run of backticks in the text. A launcher's words go into the kit's Markdown only through
// Code or Fence, so none of them renders as emphasis, a link, an
// image or an HTML comment that hides the rest.
func Code(text string) string {
	text = strings.Join(strings.Fields(text), " ")
	f := strings.Repeat("`", longestTicks(text)+1)
	if text == "" || strings.HasPrefix(text, "`") || strings.HasSuffix(text, "`") {
		text = " " + text + " " // CommonMark strips one space each side
	}
	return f + text + f
}

// Meta is run.json, written beside report.json: what the gate needs to know about the run.
type Meta struct {
	Lane   string   `json:"lane"`
	Target string   `json:"target"`
	Filter string   `json:"filter"`
	GOOS   string   `json:"goos"`
	GOARCH string   `json:"goarch"`
	Procs  int      `json:"procs"`
	DryRun bool     `json:"dry_run,omitempty"`
	Forced bool     `json:"forced,omitempty"`
	Leaks  []string `json:"leaks,omitempty"`
	// Refused are ledger lines the sweep would not act on: a process not tied to this run (the
	// launcher can append to the ledger), or a line that is no entry. Each fails the run.
	Refused []string `json:"refused,omitempty"`
	// Left is what a uid of the run's own (identity.ForRun) left in the shared folders (the temp
	// folders, /dev/shm), removed at the run's end: named, not a failure (a launcher may keep a
	// file there); a setuid or setgid file of the uid, and what could not be removed, are
	// Problems.
	Left []string `json:"left_behind,omitempty"`
	// LauncherPeak is the most a run's own launcher uid held at once, sampled every second
	// (limits.Limits.Watch); zero where the uid is not the run's own.
	LauncherPeak limits.Peak `json:"launcher_peak"`
	// LauncherLimits are the bounds its launcher processes ran under (limits.Limits).
	LauncherLimits string `json:"launcher_limits"`
	// Problems are the lane's own reasons to fail beyond its specs (the lane rule, the kit's own
	// class, a run that stopped), as the run printed them in FAILED LANE lines.
	Problems []string `json:"problems,omitempty"`
	// Stopped says why a run ended before Ginkgo wrote its report: its exit status or signal,
	// and the last of what it printed.
	Stopped  string        `json:"stopped,omitempty"`
	Passed   bool          `json:"passed"`
	Duration time.Duration `json:"duration_ns"`
	// Phases is where the run's time went, in ms: the CLI's own steps (preflight: the
	// launcher's build; compile: the suites and harness, or finding them built; ginkgo: the
	// suites running; sweep: the ledger).
	Phases map[string]float64 `json:"phases_ms,omitempty"`
	// Containment is how the run knew its launcher's processes (cgroup.Containment): a cgroup v2
	// of the run's own on Linux where one could be written, else what the kit tracks, and why.
	Containment string `json:"containment"`
	// LedgerAppendOnly says whether the run's pid ledger, where each harness records itself, was
	// append-only to the launcher's processes (FS_APPEND_FL on Linux): "yes", or "no (why)": a
	// launcher could then rewrite it and erase the record of a harness it killed unjudged.
	LedgerAppendOnly string `json:"ledger_append_only"`
	// LedgerChannel says which record of its harnesses the run had beside the pid ledger: "fifo
	// by uid (PATH; N lines copied ...)", a channel each harness finds from its uid alone, so a
	// harness started without its --ledger is recorded too; or "argv only: why" (a kit that is
	// not root, macOS), where a launcher that starts the harness without --ledger and kills it
	// leaves no record.
	LedgerChannel string `json:"ledger_channel"`
	// Sandbox is what kept the launcher's processes from writing the kit's files and this folder
	// (helpers/base/confine: Landlock, Seatbelt, or none and why). Sandboxed says every write the
	// verdict rests on was refused (Landlock from ABI 3, Seatbelt); SandboxLacks names what the
	// sandbox did not enforce (on an older kernel: signals not scoped).
	Sandbox      string   `json:"sandbox"`
	Sandboxed    bool     `json:"sandboxed"`
	SandboxLacks []string `json:"sandbox_lacks,omitempty"`
	// LauncherIdentity is who the launcher's processes ran as (identity.Identity); LauncherRoot says
	// they held root's power, which gate --require-sandbox blocks.
	LauncherIdentity string `json:"launcher_identity"`
	LauncherRoot     bool   `json:"launcher_root"`
	// Digests are the reports as the CLI read and judged them, after every launcher process of
	// the run was gone: "sha256:HEX" per file name. The gate judges only files that still match.
	Digests map[string]string `json:"digests"`
}

// Finalised are the reports run.json records a digest of.
var Finalised = []string{"report.json", "junit.xml"}

// Digest is b's entry in Meta.Digests.
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Changed is, for each finalised report in dir, why it is not the file the CLI judged: no digest
// recorded, or a file whose bytes no longer match it.
func (m Meta) Changed(dir string) []string {
	var why []string
	for _, name := range Finalised {
		want, ok := m.Digests[name]
		if !ok {
			why = append(why, fmt.Sprintf("run.json records no digest of %s (written by hand, or by a classproof older than the digests)", name))
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			why = append(why, fmt.Sprintf("%s, whose digest run.json records: %v", name, err))
			continue
		}
		if got := Digest(b); got != want {
			why = append(why, fmt.Sprintf("%s is not the file the run judged: run.json records %s, the file is %s (changed after the run)", name, want, got))
		}
	}
	return why
}

// FailedBecause quotes what made a run fail, from run.json alone: its problems, leaks and
// refused ledger lines, or why it stopped; else its specs (the report says which).
func (m Meta) FailedBecause() string {
	var why []string
	for _, p := range m.Problems {
		why = append(why, "FAILED LANE: "+p)
	}
	for _, l := range m.Leaks {
		why = append(why, "LEAK: "+l)
	}
	for _, r := range m.Refused {
		why = append(why, "REFUSED LEDGER LINE: "+r)
	}
	if m.Stopped != "" {
		why = append(why, "stopped: "+m.Stopped)
	}
	if len(why) == 0 {
		return "no lane problem, leak or stop is recorded, so its specs or suites failed (the report's failures are listed with this lane)"
	}
	return strings.Join(why, "; ")
}
