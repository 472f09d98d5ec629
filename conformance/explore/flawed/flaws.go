package flawed

import (
	"bytes"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"eventsvc/conformance/target"
)

// values applies f to every value of doc of type T (a text, a number)
// outside "_links".
func values[T any](doc map[string]any, f func(T) T) {
	for k, v := range doc {
		if x, ok := v.(T); ok {
			doc[k] = f(x)
			continue
		}
		switch t := v.(type) {
		case map[string]any:
			if k != "_links" {
				values(t, f)
			}
		case []any:
			for _, e := range t {
				if m, ok := e.(map[string]any); ok {
					values(m, f)
				}
			}
		}
	}
}

// readBack are the rules a fault of what reads back breaks: after the
// creation (API-6), after an update (API-9).
var readBack = []string{"API-6", "API-9"}

// EventPath matches the address of one event.
var EventPath = regexp.MustCompile(`^/api/events/[0-9]+$`)

// Flaws are the breakages; each shows only with data or a sequence no
// scenario has. The scenarios of a remote run pass against each of them
// (or, for those Audited, fail by the audit of their answers alone);
// exploration finds each.
var Flaws = []Flaw{
	{Name: "letters of right-to-left scripts are lost", Rules: readBack, Answer: func(_ *Proxy, _ *http.Request, _ []byte, _ int, doc map[string]any) {
		values(doc, func(s string) string {
			return strings.Map(func(r rune) rune {
				if r >= 0x0590 && r <= 0x06FF {
					return -1
				}
				return r
			}, s)
		})
	}},
	{Name: "tabs and line breaks read back as spaces", Rules: readBack, Answer: func(_ *Proxy, _ *http.Request, _ []byte, _ int, doc map[string]any) {
		values(doc, strings.NewReplacer("\t", " ", "\n", " ").Replace)
	}},
	{Name: "texts over 200 characters are cut", Rules: readBack, Answer: func(_ *Proxy, _ *http.Request, _ []byte, _ int, doc map[string]any) {
		values(doc, func(s string) string {
			if r := []rune(s); len(r) > 200 {
				return string(r[:200])
			}
			return s
		})
	}},
	{Name: "a leap day reads back as the first of March", Rules: readBack, Answer: func(_ *Proxy, _ *http.Request, _ []byte, _ int, doc map[string]any) {
		values(doc, func(s string) string {
			if len(s) > 10 && s[4:11] == "-02-29T" {
				return s[:4] + "-03-01T" + s[11:]
			}
			return s
		})
	}},
	{Name: "counts over 65535 read back as 65535", Rules: readBack, Answer: func(_ *Proxy, _ *http.Request, _ []byte, _ int, doc map[string]any) {
		values(doc, func(n float64) float64 { return min(n, 65535) })
	}},
	{Name: "a body with markup fails the server", Rules: []string{"server error"}, Request: func(_ *Proxy, w http.ResponseWriter, _ *http.Request, body []byte) ([]byte, bool) {
		if bytes.Contains(body, []byte("<b>")) || bytes.Contains(body, []byte(`\u003cb\u003e`)) {
			http.Error(w, `{"error":"internal"}`, http.StatusInternalServerError)
			return nil, true
		}
		return body, false
	}},
	{Name: "pages of 1 to 3 events after the first have no prev", Rules: []string{"API-5"}, Answer: func(_ *Proxy, r *http.Request, _ []byte, _ int, doc map[string]any) {
		size, _ := strconv.Atoi(r.URL.Query().Get("size"))
		page, _ := strconv.Atoi(r.URL.Query().Get("page"))
		if r.Method == http.MethodGet && r.URL.Path == "/api/events" && size >= 1 && size <= 3 && page > 0 {
			links, _ := doc["_links"].(map[string]any)
			delete(links, "prev")
		}
	}},
	{Name: "a second update stores the name alone", Audited: true, Rules: []string{"API-9"}, Request: func(p *Proxy, _ http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool) {
		if r.Method != http.MethodPut || !EventPath.MatchString(r.URL.Path) {
			return body, false
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		last := p.lastBody[r.URL.Path]
		var sent map[string]any
		if p.updates[r.URL.Path] == 0 || last == nil || json.Unmarshal(body, &sent) != nil {
			return body, false
		}
		merged := map[string]any{}
		for k, v := range last {
			merged[k] = v
		}
		merged["name"] = sent["name"]
		b, _ := json.Marshal(merged)
		return b, false
	}},
	{Name: "a refreshed token of the other user is offered every event's update-event", Audited: true, Rules: []string{"API-8"}, Answer: func(p *Proxy, r *http.Request, _ []byte, status int, doc map[string]any) {
		if r.Method != http.MethodGet || !EventPath.MatchString(r.URL.Path) || status != http.StatusOK {
			return
		}
		_, token, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		p.mu.Lock()
		who := p.refreshedFor[token]
		p.mu.Unlock()
		if who != target.DemoCredentials.OtherUsername {
			return
		}
		links, _ := doc["_links"].(map[string]any)
		if _, ok := links["update-event"]; !ok && links != nil {
			links["update-event"] = links["self"]
		}
	}},
	{Name: "another user's refused update still moves the event", Audited: true, Rules: []string{"AUTH-6"}, Answer: func(p *Proxy, r *http.Request, reqBody []byte, status int, _ map[string]any) {
		if r.Method != http.MethodPut || status != http.StatusForbidden {
			return
		}
		p.mu.Lock()
		creator, last := p.creator[r.URL.Path], p.lastBody[r.URL.Path]
		p.mu.Unlock()
		var sent map[string]any
		if creator == "" || json.Unmarshal(reqBody, &sent) != nil {
			return
		}
		if last == nil {
			last = sent
		}
		moved := map[string]any{}
		for k, v := range last {
			moved[k] = v
		}
		moved["location"] = sent["location"]
		if moved["location"] == last["location"] {
			moved["location"] = "Moved by a refused update"
		}
		b, _ := json.Marshal(moved)
		req, _ := http.NewRequest(http.MethodPut, p.backend+r.URL.Path, bytes.NewReader(b))
		req.Header.Set("Authorization", creator)
		req.Header.Set("Content-Type", "application/json")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}},
	{Name: "a creation that meets an update is lost", Rules: []string{"API-6"}, Request: LoseCreationsThatMeetUpdates},
	{Name: "the bearer scheme is read in three spellings only", Rules: []string{"SVC-7"}, Request: func(_ *Proxy, _ http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool) {
		scheme, _, _ := strings.Cut(r.Header.Get("Authorization"), " ")
		if strings.EqualFold(scheme, "bearer") && scheme != "Bearer" && scheme != "bearer" && scheme != "BEARER" {
			r.Header.Del("Authorization")
		}
		return body, false
	}},
}

// Named is the flaw of Flaws of that name.
func Named(t testing.TB, name string) Flaw {
	t.Helper()
	for _, f := range Flaws {
		if f.Name == name {
			return f
		}
	}
	t.Fatalf("no flaw %q", name)
	return Flaw{}
}
