package main

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/classproof/classproof/helpers/report"
)

// lane is one lane's last run in a clone: the CLI's phases, the specs' phases summed, and the
// specs' places in the lane's schedule.
type lane struct {
	folder, name string
	wall, ginkgo float64 // seconds
	cli          map[string]float64
	ran          int
	specs        float64 // the specs' run times, summed
	phases       map[string]float64
	long         []placed
	start        time.Time
}

// placed is one spec where it ran: from and to, in seconds from the lane's suites' start.
type placed struct {
	text     string
	from, to float64
}

// readLanes reads make verify's two lanes in a clone.
func readLanes(dir string) []lane {
	var out []lane
	for _, folder := range []string{"out/verify", "out/verify-seed"} {
		l := lane{folder: folder, cli: map[string]float64{}, phases: map[string]float64{}}
		var meta struct {
			Lane     string             `json:"lane"`
			Phases   map[string]float64 `json:"phases_ms"`
			Duration int64              `json:"duration_ns"`
		}
		if jsonFile(filepath.Join(dir, folder, "run.json"), &meta) {
			l.name, l.wall = meta.Lane, float64(meta.Duration)/1e9
			for k, v := range meta.Phases {
				l.cli[k] = v / 1e3
			}
		}
		if r, err := report.Load(filepath.Join(dir, folder, "report.json"), ""); err == nil {
			for _, s := range r.Specs {
				if s.Outcome() != report.Passed && s.Outcome() != report.Failed {
					continue
				}
				l.ran++
				l.specs += s.Duration.Seconds()
				for k, v := range s.Phases {
					l.phases[k] += v.Seconds()
				}
			}
		}
		l.schedule(filepath.Join(dir, folder, "report.json"))
		out = append(out, l)
	}
	return out
}

// schedule reads Ginkgo's own report for each spec's start and end: the five longest, placed.
func (l *lane) schedule(path string) {
	var suites []struct {
		StartTime   time.Time
		SpecReports []struct {
			LeafNodeType, LeafNodeText, State string
			StartTime, EndTime                time.Time
		}
	}
	if !jsonFile(path, &suites) {
		return
	}
	var all []placed
	for _, s := range suites {
		if l.start.IsZero() || s.StartTime.Before(l.start) {
			l.start = s.StartTime
		}
	}
	var last time.Time
	for _, s := range suites {
		for _, sp := range s.SpecReports {
			if sp.LeafNodeType != "It" || (sp.State != "passed" && sp.State != "failed") {
				continue
			}
			all = append(all, placed{text: sp.LeafNodeText, from: sp.StartTime.Sub(l.start).Seconds(), to: sp.EndTime.Sub(l.start).Seconds()})
			if sp.EndTime.After(last) {
				last = sp.EndTime
			}
		}
	}
	l.ginkgo = last.Sub(l.start).Seconds()
	sort.Slice(all, func(i, j int) bool { return all[i].to-all[i].from > all[j].to-all[j].from })
	l.long = all[:min(5, len(all))]
}

// table is the report: the walls and their ratio, then each lane side by side.
func table(sides []*side, machine string) string {
	var b strings.Builder
	h, o := sides[0], sides[1]
	fmt.Fprintf(&b, "`make verify`, warm, %d runs each alternating, on %s, %s:\n\n", len(h.walls), machine, time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	b.WriteString("| commit | runs (s) | median (s) | specs passed | ms of wall per spec |\n|---|---|---|---|---|\n")
	for _, s := range sides {
		n := 0
		for _, l := range s.lanes {
			n += l.ran
		}
		var each []string
		for _, w := range s.walls {
			each = append(each, fmt.Sprintf("%.2f", w))
		}
		fmt.Fprintf(&b, "| %s | %s | %.2f | %d | %.1f |\n", s.name, strings.Join(each, " / "), median(s.walls), n, 1000*median(s.walls)/float64(max(n, 1)))
	}
	fmt.Fprintf(&b, "\nratio %s / %s: **%.2f** (median over median)\n", h.name, o.name, median(h.walls)/median(o.walls))
	if len(h.colds) > 0 {
		fmt.Fprintf(&b, "\nCold (empty Go build, module and kit caches), alternating: %s %s s, median %.2f; %s %s s, median %.2f; ratio **%.2f**\n",
			h.name, list(h.colds), median(h.colds), o.name, list(o.colds), median(o.colds), median(h.colds)/median(o.colds))
	}
	for i := range h.lanes {
		phases(&b, h, o, i)
	}
	return b.String()
}

func list(v []float64) string {
	var each []string
	for _, x := range v {
		each = append(each, fmt.Sprintf("%.2f", x))
	}
	return strings.Join(each, " / ")
}

// phases is lane i of both sides, a row per phase, and the long specs of each.
func phases(b *strings.Builder, h, o *side, i int) {
	lh, lo := h.lanes[i], lane{}
	if i < len(o.lanes) {
		lo = o.lanes[i]
	}
	fmt.Fprintf(b, "\n%s (%s), the last run of each; seconds:\n\n| phase | %s | %s |\n|---|---|---|\n", lh.folder, lh.name, h.name, o.name)
	row := func(name string, a, c float64) { fmt.Fprintf(b, "| %s | %.2f | %.2f |\n", name, a, c) }
	row("run, whole (classproof run)", lh.wall, lo.wall)
	for _, p := range []string{"compile", "preflight", "ginkgo", "sweep"} {
		row("&nbsp;&nbsp;"+p, lh.cli[p], lo.cli[p])
	}
	fmt.Fprintf(b, "| specs run | %d | %d |\n", lh.ran, lo.ran)
	row("&nbsp;&nbsp;specs, summed", lh.specs, lo.specs)
	names := map[string]bool{}
	for k := range lh.phases {
		names[k] = true
	}
	for k := range lo.phases {
		names[k] = true
	}
	var sorted []string
	for k := range names {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	var nh, no float64
	for _, k := range sorted {
		row("&nbsp;&nbsp;&nbsp;&nbsp;"+k, lh.phases[k], lo.phases[k])
		nh, no = nh+lh.phases[k], no+lo.phases[k]
	}
	row("&nbsp;&nbsp;&nbsp;&nbsp;the specs' own waits", lh.specs-nh, lo.specs-no)
	// Specs that ran side by side (--procs above 1, suites at once) sum past the lane's wall: the
	// difference then says nothing of setup.
	setup := func(l lane) string {
		if l.specs > l.cli["ginkgo"] {
			return "(side by side)"
		}
		return fmt.Sprintf("%.2f", l.cli["ginkgo"]-l.specs)
	}
	fmt.Fprintf(b, "| &nbsp;&nbsp;suite setup and Ginkgo (ginkgo minus specs) | %s | %s |\n", setup(lh), setup(lo))
	for _, s := range []struct {
		name string
		l    lane
	}{{h.name, lh}, {o.name, lo}} {
		fmt.Fprintf(b, "\nLongest specs at %s (from-to: seconds after the lane's suites started; the last spec ended at %.2f):\n\n", s.name, s.l.ginkgo)
		for _, p := range s.l.long {
			fmt.Fprintf(b, "- %.2f s, %.2f-%.2f: %s\n", p.to-p.from, p.from, p.to, p.text)
		}
	}
}
