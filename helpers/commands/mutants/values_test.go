package mutants

import (
	"slices"
	"strings"
	"testing"
)

func TestParseValues(t *testing.T) {
	vs, err := ParseValues("variants.tsv", []byte("noclass\tno class step\tsites=launch\n\nignore-applies\tclass applied in ignore mode\tonly=linux: ignore mode is Linux's\tsites=appliesOnLinux,decided\nno-size-limit\tany size\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 3 || vs[0].Name != "noclass" || len(vs[0].OnlyOn) != 0 || !slices.Equal(vs[0].Sites, []string{"launch"}) {
		t.Fatalf("got %+v", vs)
	}
	if v := vs[1]; strings.Join(v.OnlyOn, ",") != "linux" || v.Why != "ignore mode is Linux's" || !slices.Equal(v.Sites, []string{"appliesOnLinux", "decided"}) {
		t.Errorf("only and sites fields read as %+v", v)
	}
	if vs[2].Sites != nil {
		t.Errorf("a variant without sites read as %+v", vs[2])
	}
	for in, want := range map[string]string{
		"x\ty\tlinux":                         `variants.tsv line 1: field "linux": expected "only=GOOS[,GOOS]: why`,
		"x\ty\tonly=linux":                    `field "only=linux"`,
		"x\ty\tonly=linux: \n":                `field "only=linux: "`,
		"x\ty\tonly=linux: a\tonly=darwin: b": `field "only=darwin: b"`,
		"x\ty\tsites=a\tsites=b":              `field "sites=b": expected one "sites=SITE`,
		"x\ty\tsites=":                        `field "sites=": expected one "sites=SITE`,
		"x\ty\tsites=a,,b":                    `field "sites=a,,b"`,
		"x\ty\tsites=a b":                     `field "sites=a b"`,
		"\n\n":                                "variants.tsv: no variants",
		"x\ty\nz\tw\nx\tv":                    `line 3: variant "x" is listed twice`,
	} {
		if _, err := ParseValues("variants.tsv", []byte(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: got %v, want an error with %q", in, err, want)
		}
	}
}
