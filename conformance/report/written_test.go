package report

import (
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"testing"
)

// written is a folder of a test's, into which a run's reports are written.
type written struct {
	t   *testing.T
	dir string
}

// writeReports writes rep's reports into a new folder of the test's.
func writeReports(t *testing.T, rep *Report) written {
	t.Helper()
	w := written{t: t, dir: t.TempDir()}
	w.write(rep)
	return w
}

// write writes rep's reports into the folder, over those it holds.
func (w written) write(rep *Report) {
	w.t.Helper()
	if err := (&Writer{Dir: w.dir}).Finish(rep); err != nil {
		w.t.Fatal(err)
	}
}

// read is the report of that name in the folder.
func (w written) read(name string) []byte {
	w.t.Helper()
	b, err := os.ReadFile(filepath.Join(w.dir, name))
	if err != nil {
		w.t.Fatal(err)
	}
	return b
}

// property is one property of a test suite of junit.xml.
type property struct {
	Name  string `xml:"name,attr"`
	Value string `xml:"value,attr"`
}

// suiteRead is a test suite of junit.xml as a test reads it: by its name and properties.
type suiteRead struct {
	Name  string     `xml:"name,attr"`
	Props []property `xml:"properties>property"`
}

// suitesRead are the test suites of junit.xml, at least one.
func (w written) suitesRead() []suiteRead {
	w.t.Helper()
	var junit struct {
		Suites []suiteRead `xml:"testsuite"`
	}
	if err := xml.Unmarshal(w.read(JUnitReport), &junit); err != nil || len(junit.Suites) == 0 {
		w.t.Fatalf("junit.xml: %v, %d suites", err, len(junit.Suites))
	}
	return junit.Suites
}

// cucumberDescriptions are the descriptions of the features of
// cucumber.json, at least one.
func (w written) cucumberDescriptions() []string {
	w.t.Helper()
	var cucumber []struct {
		Description string `json:"description"`
	}
	if err := json.Unmarshal(w.read(CucumberReport), &cucumber); err != nil || len(cucumber) == 0 {
		w.t.Fatalf("cucumber.json: %v, %d features", err, len(cucumber))
	}
	var out []string
	for _, f := range cucumber {
		out = append(out, f.Description)
	}
	return out
}
