package explore

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"eventsvc/conformance/explore/flawed"
	"eventsvc/conformance/report"
)

// TestAFindingsEvidenceEndsWithItsExchange: a finding's exchanges end with
// the one it is about, marked as the failing one, although the check sent
// more requests after it to tell which rule is broken (a write refused to
// a token in a scheme of odd spelling: is the token, or the scheme, not
// taken?); the script sends as many requests, and marks its last as the
// failing one.
func TestAFindingsEvidenceEndsWithItsExchange(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	rep, err := Run(context.Background(), Options{Target: remote(flawed.Start(t, flawed.Named(t, "the bearer scheme is read in three spellings only"))),
		Seed: 1, MaxActions: 200, Output: &out, ReportDir: dir})
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	findings := 0
	for _, s := range rep.Scenarios {
		f := s.Failure
		if s.Verdict != report.Failed || f == nil {
			continue
		}
		findings++
		if n := len(f.Exchanges); n == 0 || f.FailingExchange != n || f.Exchanges[n-1] != f.Exchange {
			t.Errorf("%s: the failing exchange is number %d of %d, and the last is not the one the finding is about:\n%s\nlast:\n%s",
				s.Place(), f.FailingExchange, n, f.Exchange, f.Exchanges[n-1])
		}
		text, err := os.ReadFile(filepath.Join(dir, f.ScriptFile))
		if err != nil {
			t.Fatal(err)
		}
		script := string(text)
		end := script[strings.LastIndex(script, "\nsay "):]
		if strings.Count(script, "\nsay \"== ") != len(f.Exchanges) || !strings.Contains(end, "(the failing request)") {
			t.Errorf("%s: the script sends %d requests, not the %d of the finding, or does not end with its failing one:\n%s",
				s.Place(), strings.Count(script, "\nsay \"== "), len(f.Exchanges), script)
		}
	}
	if findings == 0 {
		t.Fatalf("no finding:\n%s", out.String())
	}
}
