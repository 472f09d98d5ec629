package suite

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"eventsvc/conformance/explore"
	"eventsvc/conformance/othersvc"
	"eventsvc/conformance/report"
	"eventsvc/conformance/target"
)

func TestZZExplore(t *testing.T) {
	want := os.Getenv("ZZ")
	if want == "" {
		t.Skip()
	}
	for _, b := range othersvc.BugReports {
		if !strings.Contains(b.Name, want) {
			continue
		}
		c := b.Config
		srv := othersvc.Start(t, c)
		var log bytes.Buffer
		rep, err := explore.Run(context.Background(), explore.Options{
			Target:    target.Target{BaseURL: srv.URL, Credentials: othersvc.Creds, RunID: "measure", EventBody: []byte(c.Body())},
			Seed:      measureSeed,
			Output:    &log,
			ReportDir: t.TempDir(),
		})
		t.Logf("%s: %v", b.Name, err)
		for _, s := range rep.Scenarios {
			if s.Verdict == report.Failed && s.Failure != nil {
				t.Logf("%s blamed %v\n%s", s.Name, s.Blamed(), s.Failure.Text())
				for _, st := range s.Steps {
					t.Logf("   step: %s", st.Text)
				}
			}
		}
	}
}
