package suite

import (
	"strings"
	"testing"

	"eventsvc/conformance/othersvc"
	"eventsvc/conformance/report"
	"eventsvc/conformance/selection"
)

// TestAFailureSaysWhatWasThere checks that a failure's message shows a
// value as the JSON it was, and that the exchange shown beside it is the
// one the message speaks of, its page named by its address.
func TestAFailureSaysWhatWasThere(t *testing.T) {
	for _, tt := range []struct {
		name     string
		flaws    othersvc.Flaws
		scenario string
		message  []string // in the message
		request  string   // the exchange's request line
	}{
		{
			name: "expires_in as a string", flaws: othersvc.Flaws{ExpiresInString: true},
			scenario: "A user exchanges their email and password for tokens",
			message:  []string{`expires_in is the string "300"`},
			request:  "POST ",
		},
		{
			name: "next on the last page", flaws: othersvc.Flaws{NextOnLastPage: true},
			scenario: "A list whose last page is full has no \"next\" there",
			message:  []string{"the page at ", "?p=", ", reached through the \"next\" link of the page at ", "lists no events"},
		},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep, out, _ := runOther(t, othersvc.Config{Flaws: tt.flaws}, selection.RemoteTags, false)
			var f *report.Failure
			for _, s := range rep.Scenarios {
				if s.Name == tt.scenario {
					f = s.Failure
				}
			}
			if f == nil {
				t.Fatalf("%q did not fail\n%s", tt.scenario, out)
			}
			for _, want := range tt.message {
				if !strings.Contains(f.Message, want) {
					t.Errorf("the message %q lacks %q", f.Message, want)
				}
			}
			request := tt.request
			if request == "" {
				// The page the message names first is the one shown.
				rest := strings.TrimPrefix(f.Message, "the page at ")
				request = "GET " + rest[:strings.Index(rest, ",")]
			}
			if !strings.Contains(f.Exchange, "request:\n    "+request) {
				t.Errorf("the exchange shown is not the one of %q:\n%s", request, f.Exchange)
			}
		})
	}
}
