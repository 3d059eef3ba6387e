package bench

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/classproof/classproof/helpers/base/files"
	"github.com/classproof/classproof/helpers/runner"
)

type metric struct {
	name   string
	unit   string
	get    func(Sample) float64
	format string
}

var metrics = []metric{
	{"probe frame lateness p95", "ms", func(r Sample) float64 { return r.P95MS }, "%.1f"},
	{"probe frame lateness p50", "ms", func(r Sample) float64 { return r.P50MS }, "%.1f"},
	{"probe frame lateness max", "ms", func(r Sample) float64 { return r.MaxMS }, "%.1f"},
	{"probe frames finished late", "", func(r Sample) float64 { return float64(r.Missed) }, "%.0f"},
	{"probe vsyncs dropped (of N)", "", func(r Sample) float64 { return float64(r.Dropped) }, "%.0f"},
	{"probe CPU per frame", "ms", func(r Sample) float64 { return r.CPUPerFrame }, "%.2f"},
	{"fixed job alone, wall", "ms", func(r Sample) float64 { return r.JobWallMS }, "%.0f"},
}

// Table renders the seed-style table: each figure the median of the runs, the runs in brackets,
// and the change against default.
func (r *Result) Table() string {
	var b strings.Builder
	frames := int(r.Options.Duration.Seconds() * float64(r.Options.Hz))
	b.WriteString("| metric |")
	for _, c := range r.Classes {
		fmt.Fprintf(&b, " %s |", c.Name)
	}
	b.WriteString("\n|---|")
	for range r.Classes {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, m := range metrics {
		name := strings.Replace(m.name, "of N)", fmt.Sprintf("of %d)", frames), 1)
		if m.unit != "" {
			name += ", " + m.unit
		}
		fmt.Fprintf(&b, "| %s |", name)
		base := Median(r.Runs["default"], m.get)
		for _, c := range r.Classes {
			runs := r.Runs[c.Name]
			med := Median(runs, m.get)
			var each []string
			for _, run := range runs {
				each = append(each, fmt.Sprintf(m.format, m.get(run)))
			}
			cell := fmt.Sprintf(m.format+" (runs: %s)", med, strings.Join(each, ", "))
			if c.Name != "default" && base != 0 {
				cell += fmt.Sprintf(" %+.0f %%", (med-base)/base*100)
			}
			fmt.Fprintf(&b, " %s |", cell)
		}
		b.WriteString("\n")
	}
	b.WriteString("\nClasses:\n")
	for _, c := range r.Classes {
		check := ""
		if runs := r.Runs[c.Name]; len(runs) > 0 {
			check = "; a load process read with ps: " + runs[0].LoadCheck
		}
		fmt.Fprintf(&b, "- %s: %s%s\n", c.Name, c.Note, check)
	}
	return b.String()
}

// RatioText says the ratio in words; a background p95 of 0 (under 5 % of frames late) makes it
// unbounded.
func (r *Result) RatioText() string {
	p95 := func(x Sample) float64 { return x.P95MS }
	def, bg := Median(r.Runs["default"], p95), Median(r.Runs["background"], p95)
	ratio := fmt.Sprintf("%.1fx", r.Ratio())
	if math.IsInf(r.Ratio(), 1) {
		ratio = "unbounded (fewer than 5 % of frames late under background load)"
	}
	return fmt.Sprintf("background load: probe p95 lateness %.1f ms; default-class load: %.1f ms; ratio %s", bg, def, ratio)
}

// Ratio is default's p95 lateness over background's (medians): how much the class cut it.
func (r *Result) Ratio() float64 {
	p95 := func(x Sample) float64 { return x.P95MS }
	bg := Median(r.Runs["background"], p95)
	def := Median(r.Runs["default"], p95)
	if bg == 0 {
		if def == 0 {
			return 1
		}
		return math.Inf(1)
	}
	return def / bg
}

// Write writes bench.json, bench.md and lateness.svg into dir.
func (r *Result) Write(dir string) error {
	dir, err := runner.OutFolder(dir)
	if err != nil {
		return err
	}
	b, _ := json.MarshalIndent(r, "", "  ")
	if err := files.WriteFile(filepath.Join(dir, "bench.json"), b, 0o644); err != nil {
		return err
	}
	md := fmt.Sprintf("Machine: %s. %d load processes, %d runs of %v per class, interleaved; probe %d Hz with %d work units per frame; job %d work units.\nCommand: `%s`\n\n%s",
		r.Machine, r.Options.N, r.Options.Runs, r.Options.Duration, r.Options.Hz, r.FrameWork, r.JobWork, r.Command, r.Table())
	if err := files.WriteFile(filepath.Join(dir, "bench.md"), []byte(md), 0o644); err != nil {
		return err
	}
	return files.WriteFile(filepath.Join(dir, "lateness.svg"), []byte(r.SVG()), 0o644)
}

// SVG plots, per class, each run's p50, p95 and max frame lateness on a log scale, with the
// medians as bars: what a person looks at to see whether the class kept the probe on time.
func (r *Result) SVG() string {
	const w, h, left, top, bottom = 760, 420, 70, 40, 70
	plotH := float64(h - top - bottom)
	maxV := 1.0
	for _, runs := range r.Runs {
		for _, x := range runs {
			maxV = math.Max(maxV, x.MaxMS)
		}
	}
	lo, hi := math.Log10(0.01), math.Log10(maxV*1.5)
	y := func(v float64) float64 {
		v = math.Max(v, 0.01)
		return float64(top) + plotH*(1-(math.Log10(v)-lo)/(hi-lo))
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", w, h)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="white"/>`+"\n", w, h)
	fmt.Fprintf(&b, `<text x="%d" y="22" font-size="14">Probe frame lateness under %d busy processes, per load class (ms, log scale; 0 is drawn at 0.01)</text>`+"\n", left, r.Options.N)
	for _, tick := range []float64{0.01, 0.1, 1, 10, 100, 1000} {
		if tick > maxV*1.5 {
			break
		}
		ty := y(tick)
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#ddd"/><text x="%d" y="%.1f" text-anchor="end">%g</text>`+"\n", left, w-20, ty, ty, left-6, ty+4, tick)
	}
	if r.Options.Hz > 0 {
		period := 1000 / float64(r.Options.Hz)
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#c33" stroke-dasharray="4 3"/><text x="%d" y="%.1f" fill="#c33">one frame (%.1f ms)</text>`+"\n", left, w-20, y(period), y(period), w-150, y(period)-4, period)
	}
	colW := float64(w-left-20) / float64(len(r.Classes))
	colors := map[string]string{"p50": "#2a7", "p95": "#e80", "max": "#c33"}
	for i, c := range r.Classes {
		cx := float64(left) + colW*(float64(i)+0.5)
		runs := r.Runs[c.Name]
		for j, k := range []string{"p50", "p95", "max"} {
			get := map[string]func(Sample) float64{"p50": func(x Sample) float64 { return x.P50MS }, "p95": func(x Sample) float64 { return x.P95MS }, "max": func(x Sample) float64 { return x.MaxMS }}[k]
			x := cx + float64(j-1)*colW*0.22
			med := Median(runs, get)
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" fill="%s" opacity="0.25"/>`+"\n", x-colW*0.09, y(med), colW*0.18, float64(h-bottom)-y(med), colors[k])
			for _, run := range runs {
				fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="3.5" fill="%s"/>`+"\n", x, y(get(run)), colors[k])
			}
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d" text-anchor="middle">%s</text>`+"\n", cx, h-bottom+18, c.Name)
	}
	lx := left
	for _, k := range []string{"p50", "p95", "max"} {
		fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="4" fill="%s"/><text x="%d" y="%d">%s (dots: runs, bars: median)</text>`+"\n", lx, h-20, colors[k], lx+8, h-16, k)
		lx += 210
	}
	b.WriteString("</svg>\n")
	return b.String()
}
