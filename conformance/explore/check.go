package explore

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"eventsvc/conformance/deadlink"
)

// The oracle is the registry (package audit): every exchange of a
// sequence passes through it (scopes.go), and its first standing finding
// about an action's exchanges is the sequence's fault. What a read shows
// (HAL, the links offered to its caller, every field as last written),
// how a write is answered and what it leaves, and what a token request is
// answered are the registry's alone. The sequence's own checks are those
// of what it alone knows: a server error (5xx) and an answer cut by a
// bound of the run (sequence.play), what refreshes sent at once leave
// (refreshed.go), the walk through the list (walk.go) and the links it
// follows (follow.go). They accept what the specification leaves open:
// hrefs relative or absolute, refresh tokens rotated or not.

// Rules are the rules an exploration's answers are judged by, in the
// catalogue's order: by the registry's checks (package audit), which
// judge every exchange of every sequence, and by the exploration's own.
// API-11, AUTH-7 and TOK-11 are judged only with Options.Ref.
var Rules = []string{
	"SVC-2", "SVC-5", "SVC-7",
	"TOK-1", "TOK-3", "TOK-4", "TOK-5", "TOK-7", "TOK-8", "TOK-10", "TOK-13", "TOK-14", "TOK-15", "TOK-16",
	"API-1", "API-2", "API-3", "API-4", "API-5", "API-6", "API-7", "API-8", "API-9", "API-10", "API-11",
	"AUTH-1", "AUTH-2", "AUTH-3", "AUTH-5", "AUTH-6", "AUTH-7", "TOK-11",
}

// finding is an answer that breaks a rule, a server error, or an answer
// cut by a bound of the run.
type finding struct {
	rule        string // the rule it breaks; "" for a server error or a cut
	serverError bool
	cut         bool
	message     string
	log         int // the exchange it speaks of, in the sequence's log; -1 for none
	// walkBound is a walk through the list stopped past what the list
	// shows it holds (hal.Walk).
	walkBound bool
}

func (f *finding) String() string {
	switch {
	case f.serverError:
		return "server error: " + f.message
	case f.cut:
		return "answer cut: " + f.message
	}
	return f.rule + ": " + f.message
}

// breaks is a finding about answer a (nil for none).
func (s *sequence) breaks(rule string, a *answer, format string, args ...any) *finding {
	f := &finding{rule: rule, message: s.r.redactor.String(fmt.Sprintf(format, args...)), log: -1}
	if a != nil {
		f.log = a.log
		if page := deadlink.ProxyPage(a.status, a.header); page != "" {
			f.message += " (" + page + ")"
		}
	}
	return f
}

// checked counts a check of each rule.
func (s *sequence) checked(rules ...string) {
	for _, r := range rules {
		s.checks[r]++
	}
}

// answered is the check every answer gets: no server error, and, when the
// run checks the reference choices, the OpenAPI document (API-11).
func (s *sequence) answered(a *answer) *finding {
	if a.status >= 500 {
		return &finding{serverError: true, log: a.log, message: fmt.Sprintf("%s %s answered %d", a.method, s.r.redactor.String(a.url.Path), a.status)}
	}
	if a.contractErr != nil {
		s.checked("API-11")
		return s.breaks("API-11", a, "%s (the OpenAPI document is /docs/openapi.json)", firstLine(a.contractErr.Error()))
	}
	if s.r.contract != nil {
		s.checked("API-11")
	}
	return nil
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// sameAddress compares two addresses without their fragments.
func sameAddress(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	if err1 != nil || err2 != nil {
		return a == b
	}
	ua.Fragment, ub.Fragment = "", ""
	return ua.String() == ub.String()
}

// learnEvent learns from a, an answer to a read of ev, what the sequence
// needs of ev: its id. What the answer shows is the registry's to judge.
func (s *sequence) learnEvent(a *answer, ev *event) {
	if a.status != http.StatusOK || a.doc == nil {
		return
	}
	if id, ok := a.doc["id"]; ok {
		ev.id = strings.Trim(jsonText(id), `"`)
	}
}

// callerText names a caller in a message.
func callerText(who string) string {
	return Action{As: who}.caller()
}

// plain turns the json.Numbers of a decoded value into float64s, as a
// reader of JSON takes them.
func plain(v any) any {
	switch t := v.(type) {
	case json.Number:
		if f, err := t.Float64(); err == nil {
			return f
		}
		return t.String()
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, e := range t {
			out[k] = plain(e)
		}
		return out
	case []any:
		out := make([]any, len(t))
		for i, e := range t {
			out[i] = plain(e)
		}
		return out
	}
	return v
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}
