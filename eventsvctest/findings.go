package eventsvctest

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"eventsvc/server/clientcheck"
)

// ClientFinding is a rule of the specification that the client under test
// broke, as the server judged its requests (GET /findings): the rule,
// what the client did and must do, the caller, how many exchanges showed
// it and the first of them, tokens and secrets masked. Its String is the
// finding in one line.
type ClientFinding = clientcheck.Finding

// ClientFindings returns the findings of the server's clients so far,
// oldest first, those of rule alone when rule is given (such as "API-1"):
// an address the client built rather than read from a link, a write no
// link offered it, a token request without HTTP Basic or a form body, a
// token out of its place. A client that follows the specification leaves
// none. docs/control-api.md tells each rule.
func (s *Server) ClientFindings(tb testing.TB, rule ...string) []ClientFinding {
	tb.Helper()
	path := "/findings"
	if len(rule) > 0 {
		path += "?" + url.Values{"rule": {rule[0]}}.Encode()
	}
	return member[[]ClientFinding](tb, s, http.MethodGet, path, nil, "findings")
}

// ClearClientFindings forgets the findings so far (DELETE /findings), so
// that a test judges its client from here, and returns how many there
// were. What the server offered is kept, as a client keeps its links.
func (s *Server) ClearClientFindings(tb testing.TB) int {
	tb.Helper()
	return member[int](tb, s, http.MethodDelete, "/findings", nil, "cleared")
}

// failOnClientFindings fails tb at its end when the server's clients
// left findings, with the findings as its message.
func (s *Server) failOnClientFindings(tb testing.TB) {
	tb.Helper()
	findings := s.ClientFindings(tb)
	if len(findings) == 0 {
		return
	}
	lines := make([]string, len(findings))
	for i, f := range findings {
		lines[i] = "  " + f.String()
	}
	tb.Errorf("eventsvctest: the client broke the specification (%d findings; GET %s/findings shows them whole):\n%s", len(findings), s.ControlURL, strings.Join(lines, "\n"))
}
