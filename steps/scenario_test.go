package steps

import (
	"errors"
	"fmt"
	"testing"

	"eventsvc/conformance/audit"
	"eventsvc/internal/redact"
)

// TestAFailureSaysWhichExchangeItIsAbout: the failure of a check about an
// exchange names its index in the scenario's log through the rules it
// breaks or requires and any wrapping; a failure about none names none.
func TestAFailureSaysWhichExchangeItIsAbout(t *testing.T) {
	s := &scenario{redactor: redact.New()}
	x := &exchange{at: 3, transcript: "request:\n    GET /api/events/1\n"}
	for name, err := range map[string]error{
		"failf":            s.failf(x, "no link"),
		"unmet":            unmet(s.failf(x, "no link"), audit.UpdateOffered),
		"on the way":       unmetOnTheWay(unmet(s.failf(x, "no link"), audit.UpdateOffered), audit.Created),
		"cannot go on":     cannotGoOn(s.failf(x, "no link")),
		"wrapped":          fmt.Errorf("reading the event: %w", s.about(x, errors.New("not JSON"))),
		"without its text": s.failf(&exchange{at: 3}, "no link"),
	} {
		if at, ok := failingExchange(err); !ok || at != 3 {
			t.Errorf("%s: the failure is about exchange %d (%v), want 3", name, at, ok)
		}
	}
	if at, ok := failingExchange(unmet(s.failf(nil, "no request sent"), audit.UpdateOffered)); ok {
		t.Errorf("a failure about no exchange is about exchange %d", at)
	}
}
