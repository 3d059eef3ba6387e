package gate

import (
	"encoding/xml"
	"strings"

	"github.com/classproof/classproof/helpers/base/files"
)

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name    string        `xml:"name,attr"`
	Class   string        `xml:"classname,attr"`
	Failure *junitFailure `xml:"failure,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes one test case per lane for CI dashboards: it fails with the lane's problems.
func (v *Verdict) WriteJUnit(path string) error {
	s := junitSuite{Name: "classproof gate"}
	for _, l := range v.Lanes {
		c := junitCase{Name: l.Name + " " + l.Dir, Class: "classproof.gate"}
		if len(l.Problems) > 0 {
			c.Failure = &junitFailure{Message: l.Problems[0], Text: strings.Join(l.Problems, "\n")}
			s.Failures++
		}
		s.Cases = append(s.Cases, c)
		s.Tests++
	}
	out := junitSuites{Name: "classproof gate", Tests: s.Tests, Failures: s.Failures, Suites: []junitSuite{s}}
	b, err := xml.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	return files.WriteFile(path, append([]byte(xml.Header), b...), 0o644)
}
