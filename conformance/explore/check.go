package explore

import (
	"encoding/json"
	"eventsvc/conformance/audit"
	"fmt"
	"net/http"
	"strings"
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

// Rules returns the rules an exploration's answers are judged by, in
// the catalogue's order: the registry's (audit.Rules), which judges every
// exchange of every sequence; the exploration judges none itself. API-11,
// AUTH-7 and TOK-11 are judged only with Options.Ref.
func Rules() []string { return audit.Rules() }

// finding is an answer that breaks a rule, a server error, or an answer
// cut by a bound of the run.
type finding struct {
	rule        string // the rule it breaks; "" for a server error or a cut
	serverError bool
	cut         bool
	message     string
	log         int // the exchange it speaks of, in the sequence's log; -1 for none
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

// answered is what the sequence itself tells of every answer: a server
// error (5xx). What the answer breaks otherwise, the OpenAPI document of
// the reference server among it (API-11, with Options.Ref), is the
// registry's to judge.
func (s *sequence) answered(a *answer) *finding {
	if a.status >= 500 && !(a.status == http.StatusNotImplemented && !knownMethod(a.method)) {
		return &finding{serverError: true, log: a.log, message: fmt.Sprintf("%s %s answered %d", a.method, s.r.redactor.String(a.url.Path), a.status)}
	}
	return nil
}

// knownMethod reports whether m is a method the API's server must
// implement somewhere: GET and HEAD (RFC 9110 §9.1), POST and PUT (the
// specification's writes). It may answer any other 501 Not Implemented
// (RFC 9110 §15.6.2).
func knownMethod(m string) bool {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut:
		return true
	}
	return false
}

// learnEvent learns from a, an answer to a read or the creation of ev,
// what the sequence needs of ev: its id, and its id and manager as the
// target renders them (event.shown). What the answer shows is the
// registry's to judge.
func (s *sequence) learnEvent(a *answer, ev *event) {
	if a.status < 200 || a.status > 299 || a.doc == nil {
		return
	}
	if id, ok := a.doc["id"]; ok {
		ev.id = strings.Trim(jsonText(id), `"`)
	}
	for _, k := range []string{"id", "manager"} {
		if v, ok := a.doc[k]; ok && v != nil {
			if ev.shown == nil {
				ev.shown = map[string]any{}
			}
			ev.shown[k] = plain(v)
		}
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
