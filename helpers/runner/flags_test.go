package runner

import (
	"flag"
	"slices"
	"strings"
	"testing"
	"time"
)

func names(t Table) []string {
	out := make([]string, len(t))
	for i, d := range t {
		out[i] = d.Name
	}
	return out
}

// A command takes the run flags of the groups it names and no others, always in one order (the
// order a Reproduce line writes them in), whichever groups it unites.
func TestAShareTakesItsGroupsInOneOrder(t *testing.T) {
	for _, c := range []struct {
		takes Group
		want  string
	}{
		{AllRunFlags, "target lane suite procs focus label-filter timeout var out repo"},
		{TargetFlags, "target var repo"},
		{SelectionFlags, "lane suite procs focus label-filter"},
		{BoundFlags | TargetFlags, "target timeout var out repo"},
		{TargetFlags | FlagProcs | FlagFocus | BoundFlags, "target procs focus timeout var out repo"},
		{FlagTimeout, "timeout"},
		{0, ""},
	} {
		var f RunFlags
		got := strings.Join(names(f.Table(Share{Takes: c.takes, Out: "o", Bounds: "b"})), " ")
		if got != c.want {
			t.Errorf("share %b: flags %q, want %q", c.takes, got, c.want)
		}
	}
}

// --out and --timeout say what each command writes and bounds; a share that takes them without
// saying is refused at once, not printed with an empty help.
func TestAShareSaysWhatItsOutAndTimeoutMean(t *testing.T) {
	for _, s := range []Share{{Takes: FlagOut, Bounds: "b"}, {Takes: FlagTimeout, Out: "o"}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("share %+v: no panic", s)
				}
			}()
			var f RunFlags
			f.Table(s)
		}()
	}
	var f RunFlags
	for _, d := range f.Table(Share{Takes: BoundFlags, Out: "folder for X", Bounds: "the whole Y"}) {
		if !strings.HasPrefix(d.Usage, map[string]string{"out": "folder for X", "timeout": "the whole Y"}[d.Name]) {
			t.Errorf("--%s: usage %q", d.Name, d.Usage)
		}
	}
}

// Every kind of row parses and is written back (Args) as it was given, in the table's order,
// with rows left at their defaults left out: the Reproduce line runs what ran.
func TestATableWritesBackWhatWasParsed(t *testing.T) {
	type values struct {
		s       string
		l       []string
		n       int
		on, off bool
		d       time.Duration
		x       float64
	}
	table := func(v *values) Table {
		return Table{
			{Name: "s", Str: &v.s}, {Name: "l", List: &v.l}, {Name: "n", Num: &v.n}, {Name: "on", On: &v.on},
			{Name: "off", On: &v.off}, {Name: "d", Dur: &v.d}, {Name: "x", Float: &v.x},
		}
	}
	def := values{s: "a", n: 1, d: time.Second, x: 2}
	given := []string{"--s", "b", "--l", "p", "--l", "q", "--n", "3", "--on", "--d", "1m30s", "--x", "0.25"}
	v := def
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	table(&v).Define(fs)
	if err := fs.Parse(given); err != nil {
		t.Fatal(err)
	}
	if got := table(&v).Args(table(&def)); !slices.Equal(got, given) {
		t.Errorf("Args:\n got %q\nwant %q", got, given)
	}
	at := def
	if got := table(&at).Args(table(&def)); len(got) != 0 {
		t.Errorf("defaults written back: %q", got)
	}
}
