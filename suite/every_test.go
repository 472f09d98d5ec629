package suite

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"testing"

	"eventsvc/conformance/othersvc"
	"eventsvc/conformance/report"
	"eventsvc/conformance/selection"
	"eventsvc/conformance/target"
	"eventsvc/features"
)

// everyScenarios pairs each scenario whose sentence says "every" with the
// bug report (lastReports) that breaks the last instance only of what it
// says holds for every one: the scenario must fail on it.
var everyScenarios = map[string]string{
	"api_root.feature:19": "the API root's last link leads nowhere",
	"listing.feature:40":  "the last page of the list has no get-an-event",
	"listing.feature:69":  "the last page repeats events of the page before",
	"reading.feature:33":  "update-event, the event's last link, leads to the list",
	"writing.feature:79":  "an update leaves the venue, the last field, as it was",
}

// everyWord finds the word "every" in a scenario's sentence.
var everyWord = regexp.MustCompile(`(?i)\bevery\b`)

// TestEveryScenarioFailsOnItsLastInstance: a scenario whose sentence says
// that something holds for every one fails against a server that breaks
// it for the last one only, and passes against the same server without
// the breakage; every such scenario of the features is paired with one.
func TestEveryScenarioFailsOnItsLastInstance(t *testing.T) {
	var found []string
	files, err := fs.Glob(features.FS, "*.feature")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		text, err := fs.ReadFile(features.FS, f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(text), "\n") {
			if title, ok := strings.CutPrefix(strings.TrimSpace(line), "Scenario"); ok && everyWord.MatchString(title) {
				found = append(found, fmt.Sprintf("%s:%d", f, i+1))
			}
		}
	}
	for _, place := range found {
		if _, ok := everyScenarios[place]; !ok {
			t.Errorf("%s says \"every\", and no breakage of its last instance is paired with it in everyScenarios", place)
		}
	}
	for place, name := range everyScenarios {
		if !slices.Contains(found, place) {
			t.Errorf("everyScenarios pairs %s, which is no scenario that says \"every\"", place)
			continue
		}
		i := slices.IndexFunc(othersvc.BugReports, func(b othersvc.BugReport) bool { return b.Name == name })
		if i < 0 {
			t.Errorf("%s: no bug report is named %q", place, name)
			continue
		}
		b := othersvc.BugReports[i]
		t.Run(place, func(t *testing.T) {
			t.Parallel()
			rep, out, err := runOne(t, b.Config, place)
			if !errors.Is(err, ErrFailed) {
				t.Fatalf("%s passes against %q: Run = %v\n%s", place, name, err, out)
			}
			if failed := failedRules(rep); !slices.ContainsFunc(b.Rules, func(r string) bool { return strings.Contains(" "+failed+" ", " "+r+" ") }) {
				t.Errorf("%s fails against %q blaming %q, none of %v", place, name, failed, b.Rules)
			}
			fixed := b.Config
			fixed.Flaws = othersvc.Flaws{}
			if _, out, err := runOne(t, fixed, place); err != nil {
				t.Fatalf("%s fails against the same server without the breakage: %v\n%s", place, err, out)
			}
		})
	}
}

// runOne runs the scenario at place, as a remote run would, against a
// fresh second implementation configured with c.
func runOne(t *testing.T, c othersvc.Config, place string) (*report.Report, string, error) {
	t.Helper()
	srv := othersvc.Start(t, c)
	creds := c.Creds
	if creds == (target.Credentials{}) {
		creds = othersvc.Creds
	}
	var buf bytes.Buffer
	rep, err := Run(Options{
		Target:    target.Target{BaseURL: srv.URL, Credentials: creds, RunID: "every", EventBody: []byte(othersvc.EventBody)},
		Tags:      selection.RemoteTags,
		Scenarios: []string{place},
		Output:    &buf,
	})
	return rep, buf.String(), err
}
