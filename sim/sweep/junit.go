package sweep

import (
	"encoding/xml"
	"fmt"
	"io"
)

// junitSuites is the JUnit XML document CI test reports read.
type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Time     string       `xml:"time,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	ClassName string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML: one failed test case per
// failing seed (named by seed, typed by family, its text the reproduce
// command and the message) and one passing case for the seeds that passed.
func (r *Report) WriteJUnit(w io.Writer) error {
	secs := fmt.Sprintf("%.3f", r.Seconds)
	s := junitSuite{Name: fmt.Sprintf("felixsim sweep seeds %s shard %s", r.Seeds, r.Shard), Failures: len(r.Failures), Time: secs}
	for _, f := range r.Failures {
		s.Cases = append(s.Cases, junitCase{ClassName: "felixsim.sweep", Name: fmt.Sprintf("seed %d", f.Seed),
			Failure: &junitFailure{Message: fmt.Sprintf("%s (%s)", f.Invariant, f.Family), Type: f.Family,
				Text: fmt.Sprintf("reproduce: %s\n%s", f.Reproduce, f.Message)}})
	}
	if passed := r.SeedsRun - uint64(len(r.Failures)); passed > 0 {
		s.Cases = append(s.Cases, junitCase{ClassName: "felixsim.sweep", Name: fmt.Sprintf("%d seeds passed", passed)})
	}
	s.Tests = len(s.Cases)
	doc := junitSuites{Name: "felixsim sweep", Tests: s.Tests, Failures: s.Failures, Time: secs, Suites: []junitSuite{s}}
	b, err := xml.MarshalIndent(doc, "", "  ")
	if err != nil {
		return fmt.Errorf("sweep: encode JUnit: %w", err)
	}
	if _, err := fmt.Fprintf(w, "%s%s\n", xml.Header, b); err != nil {
		return fmt.Errorf("sweep: write JUnit: %w", err)
	}
	return nil
}
