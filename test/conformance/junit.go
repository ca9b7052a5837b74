package conformance

import (
	"encoding/xml"
	"fmt"
	"os"
	"strings"
)

// Outcome is what became of a test in a run.
type Outcome string

// The outcomes of ginkgo's JUnit report; panicked, interrupted and
// timedout count as failed.
const (
	Passed  Outcome = "passed"
	Failed  Outcome = "failed"
	Skipped Outcome = "skipped"
)

// Result is one test of a run.
type Result struct {
	Name    string
	Outcome Outcome
	// Failure is the failure's text, for a test that failed; the skip's
	// message for one that skipped itself.
	Failure string
	Seconds float64
}

// junitCase is ginkgo's <testcase>.
type junitCase struct {
	Name    string  `xml:"name,attr"`
	Status  string  `xml:"status,attr"`
	Time    float64 `xml:"time,attr"`
	Failure *struct {
		Text string `xml:",chardata"`
	} `xml:"failure"`
	Error *struct {
		Text string `xml:",chardata"`
	} `xml:"error"`
	Skipped *struct {
		Message string `xml:"message,attr"`
	} `xml:"skipped"`
}

type junitReport struct {
	Suites []struct {
		Cases []junitCase `xml:"testcase"`
	} `xml:"testsuite"`
}

// ReadJUnit reads the tests of the JUnit report at path, the suite's own
// nodes ([SynchronizedBeforeSuite] and the like) left out.
func ReadJUnit(path string) ([]Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	var rep junitReport
	if err := xml.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("conformance: %s: %w", path, err)
	}
	var out []Result
	for _, s := range rep.Suites {
		for _, c := range s.Cases {
			name, ok := strings.CutPrefix(c.Name, "[It] ")
			if !ok {
				continue
			}
			out = append(out, c.result(name))
		}
	}
	return out, nil
}

func (c junitCase) result(name string) Result {
	r := Result{Name: name, Seconds: c.Time}
	switch {
	case c.Status == string(Passed):
		r.Outcome = Passed
	case c.Status == string(Skipped) || c.Status == "pending":
		r.Outcome = Skipped
		if c.Skipped != nil {
			r.Failure = c.Skipped.Message
		}
	default:
		r.Outcome = Failed
		if c.Failure != nil {
			r.Failure = c.Failure.Text
		} else if c.Error != nil {
			r.Failure = c.Error.Text
		}
	}
	return r
}
