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
	Name       string          `xml:"name,attr"`
	Tests      int             `xml:"tests,attr"`
	Failures   int             `xml:"failures,attr"`
	Skipped    int             `xml:"skipped,attr"`
	Time       string          `xml:"time,attr"`
	Properties []junitProperty `xml:"properties>property,omitempty"`
	Cases      []junitCase     `xml:"testcase"`
}

type junitProperty struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

type junitCase struct {
	ClassName string        `xml:"classname,attr"`
	Name      string        `xml:"name,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	Skipped   *junitSkipped `xml:"skipped,omitempty"`
}

type junitSkipped struct {
	Message string `xml:"message,attr"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// WriteJUnit writes the report as JUnit XML: one failed test case per
// failing seed (named by seed, typed by family, its text the reproduce
// command and the message), one skipped case per vacuous seed that did not
// fail (it passed checks that had little to judge; the message is its
// reason), and one passing case for the other seeds that passed. The
// suite's properties carry the vacuous count and the coverage totals.
func (r *Report) WriteJUnit(w io.Writer) error {
	secs := fmt.Sprintf("%.3f", r.Seconds)
	s := junitSuite{Name: fmt.Sprintf("felixsim sweep seeds %s shard %s", r.Seeds, r.Shard), Failures: len(r.Failures), Time: secs,
		Properties: r.junitProperties()}
	failing := map[uint64]bool{}
	for _, f := range r.Failures {
		failing[f.Seed] = true
		s.Cases = append(s.Cases, junitCase{ClassName: "felixsim.sweep", Name: fmt.Sprintf("seed %d", f.Seed),
			Failure: &junitFailure{Message: fmt.Sprintf("%s (%s)", f.Invariant, f.Family), Type: f.Family,
				Text: fmt.Sprintf("reproduce: %s\n%s", f.Reproduce, f.Message)}})
	}
	for _, v := range r.VacuousSeeds {
		if !failing[v.Seed] {
			s.Skipped++
			s.Cases = append(s.Cases, junitCase{ClassName: "felixsim.sweep", Name: fmt.Sprintf("seed %d (vacuous)", v.Seed),
				Skipped: &junitSkipped{Message: "vacuous: " + v.Reason}})
		}
	}
	if listed := uint64(len(r.Failures) + s.Skipped); r.SeedsRun > listed { // ReadReport refuses listed > SeedsRun
		s.Cases = append(s.Cases, junitCase{ClassName: "felixsim.sweep", Name: fmt.Sprintf("%d seeds passed", r.SeedsRun-listed)})
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

// junitProperties are the suite's properties: the vacuous count, the seeds
// coverage was summed over, and each coverage point's total by name.
func (r *Report) junitProperties() []junitProperty {
	out := []junitProperty{{"vacuous", fmt.Sprint(r.Vacuous)}, {"coverage_seeds", fmt.Sprint(r.CoverageSeeds)}}
	for _, name := range sortedNames(r.Coverage) {
		out = append(out, junitProperty{"coverage." + name, fmt.Sprint(r.Coverage[name])})
	}
	return out
}
