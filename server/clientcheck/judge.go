package clientcheck

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"
)

// verdict is one rule an exchange broke: the rule, the shape of request
// its finding gathers, and what to tell the client's developer.
type verdict struct {
	rule, shape string
	message     message
}

// message is a finding's message, written only for the exchange that
// starts the finding: most exchanges add to one.
type message struct {
	format string
	args   []any
}

// say is the message format makes of args.
func say(format string, args ...any) message { return message{format, args} }

// String writes the message.
func (m message) String() string { return fmt.Sprintf(m.format, m.args...) }

// tokenPath is the token endpoint's path.
const tokenPath = "/oauth/token"

// formType is the media type of a form-encoded body.
const formType = "application/x-www-form-urlencoded"

// judge returns the rules x breaks, given what the server had offered
// before it.
func judge(x Exchange, o *offers) []verdict {
	if strings.HasPrefix(x.Path, "/oauth/") {
		return judgeTokenRequest(x)
	}
	var out []verdict
	for _, where := range x.Misplaced {
		out = append(out, verdict{rule: "SVC-4", shape: where, message: say(
			"%s %s carried a live access token in %s: the access token goes in the Authorization: Bearer header alone, never in a cookie, a query parameter or a form field",
			x.Method, x.Path, where)})
	}
	if x.RefreshBearer {
		out = append(out, verdict{rule: "TOK-13", shape: "bearer", message: say(
			"%s %s sent a refresh token as Authorization: Bearer: a refresh token goes only to POST /oauth/token (grant_type=refresh_token); send the access token to the API",
			x.Method, x.Path)})
	}
	if v, ok := judgeAddress(x, o); ok {
		return append(out, v)
	}
	if v, ok := judgeWrite(x, o); ok {
		out = append(out, v)
	}
	return out
}

// judgeTokenRequest judges a request to the token endpoint: HTTP Basic
// (TOK-1) and a form-encoded body (TOK-2).
func judgeTokenRequest(x Exchange) []verdict {
	if x.Method != http.MethodPost || strings.TrimSuffix(x.Path, "/") != tokenPath {
		return nil
	}
	var out []verdict
	if !x.Basic {
		v := verdict{rule: "TOK-1", shape: "no basic", message: say("POST /oauth/token carried no HTTP Basic credentials: the client authenticates with Authorization: Basic base64(client_id:client_secret)")}
		if x.BodySecret {
			v.shape = "body"
			v.message = say("POST /oauth/token sent the client's credentials in the body (client_secret): the client authenticates with HTTP Basic, Authorization: Basic base64(client_id:client_secret), and sends no secret in the body. " +
				"With golang.org/x/oauth2, set Endpoint.AuthStyle to oauth2.AuthStyleInHeader: its default, AuthStyleAutoDetect, sends a refused grant again with the credentials in the body")
		}
		out = append(out, v)
	}
	if x.ContentType != formType {
		sent := "a body of type " + x.ContentType
		if x.ContentType == "" {
			sent = "no form body"
		}
		out = append(out, verdict{rule: "TOK-2", shape: x.ContentType, message: say(
			"POST /oauth/token sent %s: the token request's body is form-encoded (Content-Type: %s), not JSON", sent, formType)})
	}
	return out
}

// judgeAddress judges API-1: a request under /api to an address the
// server had offered no one.
func judgeAddress(x Exchange, o *offers) (verdict, bool) {
	if x.Path != "/api" && !strings.HasPrefix(x.Path, "/api/") {
		return verdict{}, false
	}
	query := x.Query
	for name, values := range x.Query {
		if slices.Contains(values, Masked) { // a token: no part of the address
			query = maps.Clone(query)
			delete(query, name)
		}
	}
	yes, known := o.offered(x.Path, query)
	if yes || !known {
		return verdict{}, false
	}
	s := shape(x.Path, query)
	what := "an address no answer had offered"
	switch {
	case eventID(x.Path) != "":
		s = eventsPath + "/{id}"
		what = "an event's address before any answer offered it (the list's get-an-event template, an event's self link, a Location)"
	case x.Path == eventsPath && len(query) > 0:
		what = "a page of the list with parameters no link offered"
	case x.Path == eventsPath:
		what = "the list's address before GET /api offered it (_links.events.href)"
	}
	return verdict{rule: "API-1", shape: s, message: say(
		"%s %s requested %s: a client starts at GET /api and reads every address from the links of the answers (href, templates, Location); it does not build one", x.Method, x.Path, what)}, true
}

// judgeWrite judges a write by a caller to whom no link offered it: an
// update without update-event (API-8), a creation without
// create-new-event (API-4); either refused with 403 is AUTH-6.
func judgeWrite(x Exchange, o *offers) (verdict, bool) {
	if x.Caller == (Caller{}) {
		return verdict{}, false
	}
	var id, rule, rel, first string
	switch {
	case x.Path == eventsPath && x.Method == http.MethodPost:
		rule, rel, first = "API-4", "create-new-event", "the list, read with its token, offers it"
	case eventID(x.Path) != "" && x.Method != http.MethodGet && x.Method != http.MethodHead && x.Method != http.MethodOptions:
		id, rule, rel, first = eventID(x.Path), "API-8", "update-event", "the event, read with its token, offers it to the event's manager alone"
	default:
		return verdict{}, false
	}
	yes, known := o.canWrite(x.Caller, id)
	if yes || !known {
		return verdict{}, false
	}
	if x.Status == http.StatusForbidden {
		rule = "AUTH-6"
	}
	return verdict{rule: rule, shape: x.Method + " " + rel, message: say(
		"%s %s was sent by a caller to whom no answer had offered the %s link: a client writes only where a link offers that caller the write (%s)", x.Method, x.Path, rel, first)}, true
}
