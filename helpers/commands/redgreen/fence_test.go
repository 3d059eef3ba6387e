package redgreen

import (
	"regexp"
	"strings"
	"testing"

	"github.com/classproof/classproof/helpers/report"
	"github.com/classproof/classproof/helpers/runner"
)

// hostileText is what a launcher's build output may hold to take over a receipt: emphasis that
// reads as the verdict, a link, a remote image, an HTML comment that hides the rest, backticks
// that close a code span, and a line that opens a fence.
const hostileText = "**proven** [click](https://x.invalid/) ![img](https://x.invalid/i.png) ``` `x` <!-- hidden\n```\n# proven"

// outsideCode is md with every fenced block and code span taken out, as CommonMark reads them.
func outsideCode(md string) string {
	var out strings.Builder
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		if f := regexp.MustCompile("^(`{3,})").FindString(lines[i]); f != "" {
			for i++; i < len(lines) && !(strings.HasPrefix(lines[i], f) && strings.Trim(lines[i], "`") == ""); i++ {
			}
			continue
		}
		out.WriteString(stripSpans(lines[i]) + "\n")
	}
	return out.String()
}

// stripSpans removes code spans: a run of n backticks up to the next run of exactly n.
func stripSpans(line string) string {
	var out strings.Builder
	for i := 0; i < len(line); {
		if line[i] != '`' {
			out.WriteByte(line[i])
			i++
			continue
		}
		n := i
		for n < len(line) && line[n] == '`' {
			n++
		}
		run := line[i:n]
		end := -1
		for j := n; j < len(line); {
			if line[j] != '`' {
				j++
				continue
			}
			k := j
			for k < len(line) && line[k] == '`' {
				k++
			}
			if k-j == len(run) {
				end = k
				break
			}
			j = k
		}
		if end < 0 {
			out.WriteString(run)
			i = n
			continue
		}
		i = end
	}
	return out.String()
}

// Every byte of a launcher's text in a receipt is inside a fence or a code span: the red side's
// build output in the Verdict and in Observed, a spec's reason on either side.
func TestLauncherTextInTheReceiptIsCode(t *testing.T) {
	red := &Side{Name: "red", Ref: "HEAD~1", SHA: "0123456789ab", Target: "m.yaml", BuildError: "target manifest m.yaml: build step failed: exit status 1\n" + hostileText}
	green := &Side{Name: "green", Ref: "HEAD", SHA: "ba9876543210", Target: "m.yaml"}
	p := &Proof{Red: red, Green: green, Lane: "linux-idle", Options: Options{Flags: Flags{RunFlags: runner.RunFlags{Repo: "/r"}, Red: "HEAD~1", Green: "HEAD"}}}
	p.Verdict = verdict(p.Options, p, false)
	if !strings.Contains(p.Verdict.Reason, "<!--") {
		t.Fatalf("the verdict does not carry the launcher's words, so this proves nothing: %q", p.Verdict.Reason)
	}
	md := Markdown(p)
	for _, bad := range []string{"**proven**", "](https://x.invalid", "<!--", "# proven", "`x`"} {
		if strings.Contains(outsideCode(md), bad) {
			t.Errorf("%q renders as Markdown outside any code:\n%s", bad, md)
		}
	}
	// The same for a spec's reasons on both sides.
	p = &Proof{Red: &Side{Name: "red", Target: "r.yaml"}, Green: &Side{Name: "green", Target: "g.yaml"}, Lane: "linux-idle"}
	p.Verdict = Verdict{Reason: "not proven: " + hostileText, Outcomes: []Pair{{Name: "spec", RedWhy: hostileText, GreenWhy: hostileText}},
		Broken: []string{"spec: " + hostileText}, Regressions: []string{"spec: " + hostileText}, AlsoFixed: []string{"spec: " + hostileText},
		NotRun: []report.Spec{{Name: "skipped spec", State: "skipped", Reason: hostileText}}}
	md = Markdown(p)
	for _, bad := range []string{"**proven**", "](https://x.invalid", "<!--", "# proven", "`x`"} {
		if strings.Contains(outsideCode(md), bad) {
			t.Errorf("%q renders as Markdown outside any code:\n%s", bad, md)
		}
	}
}
