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
	// ReadOnly leaves out the scenarios that create or change data
	// (@writes).
	ReadOnly bool
	// NoSummary leaves out the per-rule summary at the end.
	NoSummary bool
}

// SelectedTags returns the tag expression a run with these options selects by.
func (o Options) SelectedTags() string {
	tags := strings.TrimSpace(o.Tags)
	if o.ReadOnly {
		if tags != "" {
			tags += " && "
		}
		tags += "~@writes"
	}
	return tags
}

// Run runs the suite with godog in strict mode: an undefined or pending step
// fails its scenario. A remote target is checked by Preflight first. At the
// end it prints a verdict for every rule.
func Run(o Options) error {
	if o.Output == nil {
		o.Output = os.Stdout
	}
	if o.Features == nil {
		o.Features = features.FS
	}
	target, err := Preflight(o.Target)
	if err != nil {
		return err
	}
	if target, err = withContract(target); err != nil {
		return err
	}
	o.Target = target
	o.Target.ReadOnly = o.ReadOnly
	reportDir := o.ReportDir
	if reportDir == "" {
		tmp, err := os.MkdirTemp("", "conformance-")
		if err != nil {
			return fmt.Errorf("create a report directory: %w", err)
		}
		defer os.RemoveAll(tmp)
		reportDir = tmp
	}
	if err := os.MkdirAll(reportDir, 0o755); err != nil {
		return fmt.Errorf("create report directory: %w", err)
	}
	format := "pretty"
	if o.TestingT != nil {
		format = "progress"
	}
	cucumber := filepath.Join(reportDir, CucumberReport)
	format += ",junit:" + filepath.Join(reportDir, JUnitReport) + ",cucumber:" + cucumber
	suite := godog.TestSuite{
		Name:                "event-service-conformance",
		ScenarioInitializer: steps.Initializer(o.Target),
		Options: &godog.Options{
			Format:      format,
			Output:      o.Output,
			Strict:      true,
			NoColors:    true,
			Tags:        o.SelectedTags(),
			FS:          o.Features,
			Paths:       []string{"."},
			TestingT:    o.TestingT,
			Concurrency: o.Concurrency,
		},
	}
	status := suite.Run()
	if !o.NoSummary {
		results, err := Summarize(cucumber)
		if err != nil {
			return err
		}
		WriteSummary(o.Output, results)
	}
	if status != 0 {
		return ErrFailed
	}
	return nil
}
