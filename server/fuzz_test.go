package server

import (
	"encoding/json"
	"io"
	"math"
	"net/http/httptest"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"eventsvc/server/event"
)

// A short run, as make test could do it:
//
//	go test -run '^$' -fuzz '^FuzzPageQuery$' -fuzztime 3s ./server

// fuzzEvents is the number of demo events the fuzzed server holds.
const fuzzEvents = 25

// fuzzServer is the demo server with fuzzEvents demo events, managed in turn
// by each demo account, as `make run` starts it.
func fuzzServer(tb testing.TB) *Server {
	tb.Helper()
	cfg := demoConfig(tb)
	var managers []int64
	for id := int64(1); id <= int64(cfg.Accounts.Len()); id++ {
		if _, ok := cfg.Accounts.ByID(id); ok {
			managers = append(managers, id)
		}
	}
	events := event.NewMemory()
	for _, e := range event.Demo(fuzzEvents, managers, time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)) {
		if _, err := events.Create(e); err != nil {
			tb.Fatal(err)
		}
	}
	return New(Options{Config: cfg, Events: events})
}

// pageBody is what FuzzPageQuery reads of a 200 or a 400 answer.
type pageBody struct {
	Page *struct {
		Size          *int `json:"size"`
		TotalElements *int `json:"totalElements"`
		TotalPages    *int `json:"totalPages"`
		Number        *int `json:"number"`
	} `json:"page"`
	Embedded struct {
		EventList []json.RawMessage `json:"eventList"`
	} `json:"_embedded"`
	Links   map[string]json.RawMessage `json:"_links"`
	Content *[]event.FieldError        `json:"content"`
}

// pagingOracle says what GET /api/events should answer to a query, read
// with net/url independently of Fiber, following docs/reference-choices.md:
// page a whole number from 0 (default 0; the reference server takes at most
// 2^31-1), size from 1 to 100 (default 20), sort=property[,asc|desc] by a
// sortable property, each at most once. It returns the expected page and
// size, and the parameters that are bad; ok is false when net/url cannot
// read the query (the oracle then says nothing).
func pagingOracle(rawQuery string) (page, size int, bad []string, ok bool) {
	if strings.Contains(rawQuery, "#") {
		return 0, 0, nil, false
	}
	values, err := url.ParseQuery(rawQuery)
	if err != nil {
		return 0, 0, nil, false
	}
	page, size = 0, DefaultPageSize
	check := func(name string, valid func(string) bool) string {
		vs, present := values[name]
		switch {
		case !present:
			return ""
		case len(vs) > 1 || !valid(vs[0]):
			bad = append(bad, name)
			return ""
		}
		return vs[0]
	}
	if v := check("page", func(v string) bool {
		n, err := strconv.Atoi(v)
		return err == nil && n >= 0 && n <= math.MaxInt32
	}); v != "" {
		page, _ = strconv.Atoi(v)
	}
	if v := check("size", func(v string) bool {
		n, err := strconv.Atoi(v)
		return err == nil && n >= 1 && n <= MaxPageSize
	}); v != "" {
		size, _ = strconv.Atoi(v)
	}
	check("sort", func(v string) bool {
		if v == "" {
			return true
		}
		prop, dir, _ := strings.Cut(v, ",")
		return slices.Contains(event.SortableProperties(), prop) &&
			(dir == "" || strings.EqualFold(dir, "asc") || strings.EqualFold(dir, "desc"))
	})
	return page, size, bad, true
}

// FuzzPageQuery sends GET /api/events?<rawQuery> to the Fiber app in process
// (App().Test, no network) and checks that:
//   - the answer is 200 or 400, never 500 nor anything else, in
//     application/hal+json;
//   - a 400 body is JSON with a non-empty "content" array of errors, each
//     about field page, size or sort, of object "pageable", with a code and
//     a message;
//   - a 200 body is JSON whose page has a size from 1 to 100, a number of
//     0 or more, totalElements the number of events, totalPages matching
//     them, and at most size events, exactly those that page holds;
//   - whenever net/url can read the query, the answer is the one
//     pagingOracle expects: 400 naming exactly the bad parameters, or 200
//     with the page number and size asked for (or the defaults).
//
// A query that cannot be written in a request line (blanks, control
// characters), or that fasthttp refuses before the app sees it, is skipped.
func FuzzPageQuery(f *testing.F) {
	f.Add("page=1&size=5&sort=name,desc")
	f.Add("")
	f.Add("page=%zz")
	f.Add("size=1&size=2")
	f.Add("page=99999999999999999999")
	s := fuzzServer(f)
	f.Fuzz(func(t *testing.T, rawQuery string) {
		if strings.IndexFunc(rawQuery, func(r rune) bool { return r <= ' ' || r == 0x7f }) >= 0 {
			t.Skip("not writable in a request line")
		}
		resp, err := s.App().Test(httptest.NewRequest("GET", "/api/events?"+rawQuery, nil), -1)
		if err != nil {
			t.Skipf("fasthttp refused the request: %v", err)
		}
		defer resp.Body.Close()
		raw, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != 200 && resp.StatusCode != 400 {
			t.Fatalf("GET /api/events?%s: status %d, want 200 or 400: %s", rawQuery, resp.StatusCode, raw)
		}
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/hal+json") {
			t.Fatalf("GET /api/events?%s: status %d Content-Type %q: %s", rawQuery, resp.StatusCode, ct, raw)
		}
		var body pageBody
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Fatalf("GET /api/events?%s: status %d, body is not JSON (%v): %s", rawQuery, resp.StatusCode, err, raw)
		}
		wantPage, wantSize, wantBad, oracle := pagingOracle(rawQuery)
		if oracle && (resp.StatusCode == 400) != (len(wantBad) > 0) {
			t.Fatalf("GET /api/events?%s: status %d, but the bad parameters are %q: %s", rawQuery, resp.StatusCode, wantBad, raw)
		}
		if resp.StatusCode == 400 {
			if body.Content == nil || len(*body.Content) == 0 {
				t.Fatalf("GET /api/events?%s: 400 without a content array of errors: %s", rawQuery, raw)
			}
			for _, fe := range *body.Content {
				switch {
				case fe.Field != "page" && fe.Field != "size" && fe.Field != "sort":
					t.Fatalf("GET /api/events?%s: error about field %q: %s", rawQuery, fe.Field, raw)
				case fe.ObjectName != "pageable" || fe.Code == "" || fe.DefaultMessage == "":
					t.Fatalf("GET /api/events?%s: error %+v lacks objectName pageable, a code or a message", rawQuery, fe)
				}
			}
			if oracle {
				var fields []string
				for _, fe := range *body.Content {
					if !slices.Contains(fields, fe.Field) {
						fields = append(fields, fe.Field)
					}
				}
				slices.Sort(fields)
				slices.Sort(wantBad)
				if !slices.Equal(fields, wantBad) {
					t.Fatalf("GET /api/events?%s: errors about %q, want %q: %s", rawQuery, fields, wantBad, raw)
				}
			}
			return
		}
		p := body.Page
		if p == nil || p.Size == nil || p.Number == nil || p.TotalElements == nil || p.TotalPages == nil {
			t.Fatalf("GET /api/events?%s: 200 without a complete page: %s", rawQuery, raw)
		}
		size, number := *p.Size, *p.Number
		if size < 1 || size > MaxPageSize || number < 0 {
			t.Fatalf("GET /api/events?%s: page size %d number %d", rawQuery, size, number)
		}
		if oracle && (size != wantSize || number != wantPage) {
			t.Fatalf("GET /api/events?%s: page size %d number %d, want size %d number %d", rawQuery, size, number, wantSize, wantPage)
		}
		if *p.TotalElements != fuzzEvents || *p.TotalPages != (fuzzEvents+size-1)/size {
			t.Fatalf("GET /api/events?%s: totalElements %d totalPages %d for %d events of %d a page", rawQuery, *p.TotalElements, *p.TotalPages, fuzzEvents, size)
		}
		want := 0
		if number < (fuzzEvents+size-1)/size {
			want = min(size, fuzzEvents-number*size)
		}
		if got := len(body.Embedded.EventList); got != want {
			t.Fatalf("GET /api/events?%s: page %d of size %d holds %d events, want %d", rawQuery, number, size, got, want)
		}
		if _, ok := body.Links["self"]; !ok {
			t.Fatalf("GET /api/events?%s: 200 without a self link: %s", rawQuery, raw)
		}
	})
}
