// Package conformance runs the Event Service conformance suite: the features
// of the features package, driven by the steps package, against an
// in-process reference server or a deployed URL, with JUnit and Cucumber JSON
// reports.
package conformance

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cucumber/godog"

	"eventsvc/features"
	"eventsvc/steps"
)

// ErrFailed is returned by Run when a selected scenario failed or a step was
// undefined.
var ErrFailed = errors.New("conformance suite failed")

// Report file names, written in Options.ReportDir.
const (
	JUnitReport    = "junit.xml"
	CucumberReport = "cucumber.json"
)

// Options configure a run of the suite.
type Options struct {
	// Target is what the suite checks.
	Target steps.Target
	// Tags is a godog tag expression selecting scenarios, such as
	// "@spec && ~@local". Empty: every scenario.
	Tags string
	// ReportDir receives junit.xml and cucumber.json. Empty: no files.
	ReportDir string
	// Output receives the progress report. Default: os.Stdout.
	Output io.Writer
	// TestingT, when set, runs each scenario as a subtest of it, so that
	// `go test -run` selects scenarios by name.
	TestingT *testing.T
	// Features holds the *.feature files. Default: features.FS.
	Features fs.FS
	// Concurrency is how many scenarios run at once. Default: 1.
	Concurrency int
}

// Run runs the suite with godog in strict mode: an undefined or pending step
// fails its scenario.
func Run(o Options) error {
	if o.Output == nil {
		o.Output = os.Stdout
	}
	if o.Features == nil {
		o.Features = features.FS
	}
	format := "pretty"
	if o.TestingT != nil {
		format = "progress"
	}
	if o.ReportDir != "" {
		if err := os.MkdirAll(o.ReportDir, 0o755); err != nil {
			return fmt.Errorf("create report directory: %w", err)
		}
		format += ",junit:" + filepath.Join(o.ReportDir, JUnitReport) +
			",cucumber:" + filepath.Join(o.ReportDir, CucumberReport)
	}
	suite := godog.TestSuite{
		Name:                "event-service-conformance",
		ScenarioInitializer: steps.Initializer(o.Target),
		Options: &godog.Options{
			Format:      format,
			Output:      o.Output,
			Strict:      true,
			NoColors:    true,
			Tags:        strings.TrimSpace(o.Tags),
			FS:          o.Features,
			Paths:       []string{"."},
			TestingT:    o.TestingT,
			Concurrency: o.Concurrency,
		},
	}
	if suite.Run() != 0 {
		return ErrFailed
	}
	return nil
}
