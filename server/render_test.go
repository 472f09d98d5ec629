package server

import (
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"eventsvc/server/event"
	"eventsvc/server/hal"
)

// referenceEvent is an event as encoding/json writes it: what the server
// wrote before its bodies were written by hand, and must still write, byte
// for byte.
type referenceEvent struct {
	eventFields
	Links hal.Links `json:"_links"`
}

// referenceView is the reference body of one event, for a caller who
// manages it or not.
func referenceView(base string, e event.Event, anchor string, manager bool) []byte {
	fields := fieldsOf(e)
	self := base + "/api/events/" + strconv.FormatInt(e.ID, 10)
	links := hal.Links{"self": {Href: self}}
	if anchor != "" {
		links["query-events"] = hal.Link{Href: base + "/api/events"}
		links["profile"] = hal.Link{Href: base + "/docs/index.html#" + anchor}
		if manager {
			links["update-event"] = hal.Link{Href: self}
		}
	}
	b, _ := json.Marshal(referenceEvent{fields, links})
	return b
}

// referencePage is the reference body of a page of the list.
func referencePage(base string, q event.Query, sortParam string, page event.Page, withToken bool) []byte {
	items := make([]json.RawMessage, len(page.Events))
	for i, e := range page.Events {
		items[i] = referenceView(base, e, "", false)
	}
	totalPages := (page.Total + q.Size - 1) / q.Size
	pageURL := func(n int) string {
		v := url.Values{"page": {strconv.Itoa(n)}, "size": {strconv.Itoa(q.Size)}}
		if sortParam != "" {
			v.Set("sort", sortParam)
		}
		return base + "/api/events?" + v.Encode()
	}
	links := hal.Links{
		"self":         {Href: pageURL(q.Page)},
		"first":        {Href: pageURL(0)},
		"last":         {Href: pageURL(max(totalPages-1, 0))},
		"profile":      {Href: base + "/docs/index.html#resources-events-list"},
		"get-an-event": {Href: base + "/api/events/{id}", Templated: true},
	}
	if q.Page > 0 {
		links["prev"] = hal.Link{Href: pageURL(min(q.Page-1, max(totalPages-1, 0)))}
	}
	if q.Page+1 < totalPages {
		links["next"] = hal.Link{Href: pageURL(q.Page + 1)}
	}
	if withToken {
		links["create-new-event"] = hal.Link{Href: base + "/api/events"}
	}
	body := map[string]any{
		"_links": links,
		"page":   map[string]int{"size": q.Size, "totalElements": page.Total, "totalPages": totalPages, "number": q.Page},
	}
	if len(items) > 0 {
		body["_embedded"] = map[string]any{"eventList": items}
	}
	b, _ := json.Marshal(body)
	return b
}

// oddTexts are texts that encoding/json escapes.
var oddTexts = []string{
	"plain", "", `a "quoted" \ back\slash`, "<script>&amp;</script>", "tab\tnew\nline\rcr\bbs\fff\x00\x1f\x7f",
	"line\u2028para\u2029", "invalid \xff\xfe utf-8 \xe2\x82", "émoji 🎉 ünïcödé", "\u00ad\ufeff",
}

// TestAppendJSONTextEscapesAsEncodingJSON compares appendJSONText with
// encoding/json on odd texts and on random bytes.
func TestAppendJSONTextEscapesAsEncodingJSON(t *testing.T) {
	texts := append([]string(nil), oddTexts...)
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		b := make([]byte, r.IntN(20))
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		texts = append(texts, string(b))
	}
	for _, s := range texts {
		want, _ := json.Marshal(s)
		got := append(appendJSONText([]byte{'"'}, s), '"')
		if string(got) != string(want) {
			t.Fatalf("appendJSONText(%q) = %s, want %s", s, got, want)
		}
	}
}

// TestEventBodiesAreTheBytesEncodingJSONWrites: one event and pages of the
// list, for an anonymous caller, the manager and another user, at an
// address with characters that need escaping, are written byte for byte
// as encoding/json wrote them; an update shows at once.
func TestEventBodiesAreTheBytesEncodingJSONWrites(t *testing.T) {
	store := event.NewMemory()
	at := time.Date(2026, 11, 25, 14, 21, 0, 0, time.UTC)
	for i, name := range oddTexts {
		e := event.Event{
			Name: name, Description: oddTexts[(i+1)%len(oddTexts)], Location: oddTexts[(i+2)%len(oddTexts)],
			BeginEnrollmentDateTime: at, CloseEnrollmentDateTime: at.Add(time.Hour), BeginEventDateTime: at.Add(2 * time.Hour), EndEventDateTime: at.Add(3 * time.Hour),
			BasePrice: i, MaxPrice: i * 10, LimitOfEnrollment: i, Status: event.Published, ManagerID: int64(1 + i%2),
		}
		if _, err := store.Create(e); err != nil {
			t.Fatal(err)
		}
	}
	addr, s := listenWith(t, Options{Events: store})
	tokens := map[string]string{
		"anonymous": "",
		"user":      tokenFor(t, addr, "user@email.com", "user"),
		"admin":     tokenFor(t, addr, "admin@email.com", "admin"),
	}
	accounts := map[string]int64{}
	for _, who := range []string{"user", "admin"} {
		a, ok := s.token.Accounts.ByEmail(who + "@email.com")
		if !ok {
			t.Fatalf("no account %s", who)
		}
		accounts[who] = a.ID
	}
	get := func(host, target, token string) []byte {
		t.Helper()
		req := httptest.NewRequest("GET", target, nil)
		req.Host = host
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := s.App().Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != hal.MediaType {
			t.Fatalf("GET %s: %d %s %s", target, resp.StatusCode, resp.Header.Get("Content-Type"), b)
		}
		return b
	}
	check := func() {
		t.Helper()
		for _, host := range []string{"localhost:8080", `odd&host<x>`} {
			base := "http://" + host
			for who, token := range tokens {
				for id := int64(1); id <= int64(len(oddTexts)); id++ {
					e, _ := store.Get(id)
					got := get(host, "/api/events/"+strconv.FormatInt(id, 10), token)
					want := referenceView(base, e, "resources-events-get", accounts[who] == e.ManagerID)
					if string(got) != string(want) {
						t.Fatalf("%s, event %d at %s:\n got %s\nwant %s", who, id, host, got, want)
					}
				}
				for _, q := range []struct {
					page, size int
					sort       string
				}{{0, 20, ""}, {0, 3, "name,desc"}, {1, 3, "location"}, {2, 4, ""}, {5, 2, "name,DESC"}, {9, 5, ""}} {
					target := "/api/events?page=" + strconv.Itoa(q.page) + "&size=" + strconv.Itoa(q.size)
					query := event.Query{Page: q.page, Size: q.size}
					if q.sort != "" {
						target += "&sort=" + url.QueryEscape(q.sort)
						prop, dir, _ := strings.Cut(q.sort, ",")
						query.Sort, query.Desc = prop, strings.EqualFold(dir, "desc")
					}
					page, err := store.List(query)
					if err != nil {
						t.Fatal(err)
					}
					got := get(host, target, token)
					want := referencePage(base, query, q.sort, page, token != "")
					if string(got) != string(want) {
						t.Fatalf("%s, %s at %s:\n got %s\nwant %s", who, target, host, got, want)
					}
				}
			}
		}
	}
	check()
	if _, err := store.Update(2, func(e *event.Event) error { e.Name = "renamed <now>"; e.Location = ""; return nil }); err != nil {
		t.Fatal(err)
	}
	if got := get("localhost", "/api/events/2", ""); !strings.Contains(string(got), `"name":"renamed \u003cnow\u003e"`) || !strings.Contains(string(got), `"location":null`) {
		t.Fatalf("the update does not show: %s", got)
	}
	check()
}

// TestEventJSONHoldsABoundedNumber: past maxRenderedEvents, entries are
// dropped.
func TestEventJSONHoldsABoundedNumber(t *testing.T) {
	j := newEventJSON()
	for id := range int64(maxRenderedEvents + 50) {
		if _, err := j.fields(event.Event{ID: id + 1, Name: "n"}); err != nil {
			t.Fatal(err)
		}
	}
	if n := j.len(); n != maxRenderedEvents {
		t.Fatalf("%d entries, want %d", n, maxRenderedEvents)
	}
}

// TestTheIndexIsTheBytesEncodingJSONWrites: GET /api, at an ordinary
// address and at one with characters to escape.
func TestTheIndexIsTheBytesEncodingJSONWrites(t *testing.T) {
	_, s := listenWith(t, Options{})
	for _, host := range []string{"localhost:8080", `odd&host<x>`} {
		base := "http://" + host
		want, _ := json.Marshal(hal.Links{
			"events":  {Href: base + "/api/events"},
			"profile": {Href: base + "/docs/index.html#resources-index-access"},
		}.Resource())
		req := httptest.NewRequest("GET", "/api", nil)
		req.Host = host
		resp, err := s.App().Test(req, -1)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		if string(got) != string(want) || resp.Header.Get("Content-Type") != hal.MediaType {
			t.Fatalf("GET /api at %s: %s %s, want %s", host, resp.Header.Get("Content-Type"), got, want)
		}
	}
}
