package server

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"eventsvc/server/event"
	"eventsvc/server/hal"
)

// The bodies of the event resources are written by hand, without
// reflection, byte for byte as encoding/json writes eventView and the maps
// of hal.Links (keys in sorted order, HTML-safe escaping): the fields of an
// event, which are the same for every caller, are encoded once and kept
// until the event changes (eventJSON); the links, which depend on the
// caller and on the address the request names, are appended to them.

// maxRenderedEvents bounds how many encoded events eventJSON keeps: some
// 600 bytes each, 6 MB in all. Past it an entry is dropped.
const maxRenderedEvents = 10_000

// eventFields is an event as the API shows it, without its links: the
// part of eventView that is the same for every caller.
type eventFields struct {
	ID                      int64        `json:"id"`
	Name                    string       `json:"name"`
	Description             string       `json:"description"`
	BeginEnrollmentDateTime string       `json:"beginEnrollmentDateTime"`
	CloseEnrollmentDateTime string       `json:"closeEnrollmentDateTime"`
	BeginEventDateTime      string       `json:"beginEventDateTime"`
	EndEventDateTime        string       `json:"endEventDateTime"`
	Location                *string      `json:"location"`
	BasePrice               int          `json:"basePrice"`
	MaxPrice                int          `json:"maxPrice"`
	LimitOfEnrollment       int          `json:"limitOfEnrollment"`
	Offline                 bool         `json:"offline"`
	Free                    bool         `json:"free"`
	EventStatus             event.Status `json:"eventStatus"`
	Manager                 managerView  `json:"manager"`
}

// eventJSON keeps the encoded fields of events, each with the event it was
// encoded from: an entry serves only an event equal to that one, so that a
// change made anywhere (an update, another store) is never hidden. Safe for
// concurrent use.
type eventJSON struct {
	mu      sync.RWMutex
	entries map[int64]renderedEvent
}

type renderedEvent struct {
	event  event.Event
	fields []byte // {"id":…,"manager":{"id":…} without the closing brace
}

func newEventJSON() *eventJSON {
	return &eventJSON{entries: map[int64]renderedEvent{}}
}

// fields returns the encoded fields of e: `{"id":…,…,"manager":{…}`,
// without the closing brace, so that links can follow. The bytes are
// shared: the caller must not change them.
func (j *eventJSON) fields(e event.Event) ([]byte, error) {
	j.mu.RLock()
	r, ok := j.entries[e.ID]
	j.mu.RUnlock()
	if ok && r.event == e {
		return r.fields, nil
	}
	b, err := json.Marshal(fieldsOf(e))
	if err != nil {
		return nil, fmt.Errorf("encode event %d: %w", e.ID, err)
	}
	b = b[:len(b)-1]
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, ok := j.entries[e.ID]; !ok && len(j.entries) >= maxRenderedEvents {
		for id := range j.entries { // any one
			delete(j.entries, id)
			break
		}
	}
	j.entries[e.ID] = renderedEvent{event: e, fields: b}
	return b, nil
}

// fieldsOf is e as the API shows it, without its links.
func fieldsOf(e event.Event) eventFields {
	v := eventFields{
		ID: e.ID, Name: e.Name, Description: e.Description,
		BeginEnrollmentDateTime: e.BeginEnrollmentDateTime.Format(event.DateTimeLayout),
		CloseEnrollmentDateTime: e.CloseEnrollmentDateTime.Format(event.DateTimeLayout),
		BeginEventDateTime:      e.BeginEventDateTime.Format(event.DateTimeLayout),
		EndEventDateTime:        e.EndEventDateTime.Format(event.DateTimeLayout),
		BasePrice:               e.BasePrice, MaxPrice: e.MaxPrice, LimitOfEnrollment: e.LimitOfEnrollment,
		Offline: e.Offline, Free: e.Free, EventStatus: e.Status,
		Manager: managerView{ID: e.ManagerID},
	}
	if e.Location != "" {
		loc := e.Location
		v.Location = &loc
	}
	return v
}

// len is how many events are kept.
func (j *eventJSON) len() int {
	j.mu.RLock()
	defer j.mu.RUnlock()
	return len(j.entries)
}

// bodyBuffer is a buffer of a body being written.
type bodyBuffer struct{ b []byte }

// body returns a buffer from the pool.
func (s *Server) body() *bodyBuffer {
	if b, ok := s.buffers.Get().(*bodyBuffer); ok {
		b.b = b.b[:0]
		return b
	}
	return &bodyBuffer{b: make([]byte, 0, 16<<10)}
}

// writeHAL sends buf as an application/hal+json body with the status, and
// gives buf back to the pool (the response holds a copy).
func (s *Server) writeHAL(c *fiber.Ctx, status int, buf *bodyBuffer) error {
	c.Status(status)
	c.Response().Header.SetContentType(hal.MediaType)
	c.Response().SetBody(buf.b)
	if cap(buf.b) <= 1<<20 {
		s.buffers.Put(buf)
	}
	return nil
}

// appendLink appends `"rel":{"href":"…"`, the href being base (already
// escaped: appendBaseURL) and the parts, escaped, and the closing brace.
func appendLink(b []byte, rel string, base []byte, parts ...string) []byte {
	b = append(b, '"')
	b = append(b, rel...)
	b = append(b, `":{"href":"`...)
	b = append(b, base...)
	for _, part := range parts {
		b = appendJSONText(b, part)
	}
	return append(b, `"}`...)
}

// baseBuffer holds an escaped base URL on the stack: most fit.
type baseBuffer [128]byte

// writeEvent sends one event with its links: self, query-events, profile
// (the anchor), and update-event for its manager (spec API-8).
func (s *Server) writeEvent(c *fiber.Ctx, status int, e event.Event, anchor string) error {
	fields, err := s.rendered.fields(e)
	if err != nil {
		return err
	}
	var bb baseBuffer
	base := appendBaseURL(bb[:0], c)
	var idBuf [20]byte
	id := string(strconv.AppendInt(idBuf[:0], e.ID, 10)) // on the stack: it does not escape
	buf := s.body()
	b := append(buf.b, fields...)
	b = append(b, `,"_links":{`...)
	b = appendLink(b, "profile", base, "/docs/index.html#", anchor)
	b = append(b, ',')
	b = appendLink(b, "query-events", base, "/api/events")
	b = append(b, ',')
	b = appendLink(b, "self", base, "/api/events/", id)
	if isManager(c, e) {
		b = append(b, ',')
		b = appendLink(b, "update-event", base, "/api/events/", id)
	}
	buf.b = append(b, "}}"...)
	return s.writeHAL(c, status, buf)
}

// writeEventPage sends a page of the list (spec API-3 to API-5): its
// events, each with its self link, the paging links, and the page's
// numbers.
func (s *Server) writeEventPage(c *fiber.Ctx, q event.Query, sortParam string, page event.Page) error {
	var bb baseBuffer
	base := appendBaseURL(bb[:0], c)
	totalPages := (page.Total + q.Size - 1) / q.Size
	size := strconv.Itoa(q.Size)
	sortQuery := ""
	if sortParam != "" {
		sortQuery = "&sort=" + url.QueryEscape(sortParam)
	}
	// pageLink is a link to page n; the query is as url.Values.Encode
	// writes it: page, size, sort.
	pageLink := func(b []byte, rel string, n int) []byte {
		return appendLink(b, rel, base, "/api/events?page=", strconv.Itoa(n), "&size=", size, sortQuery)
	}
	buf := s.body()
	b := append(buf.b, '{')
	if len(page.Events) > 0 {
		b = append(b, `"_embedded":{"eventList":[`...)
		for i, e := range page.Events {
			fields, err := s.rendered.fields(e)
			if err != nil {
				return err
			}
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, fields...)
			b = append(b, `,"_links":{"self":{"href":"`...)
			b = append(b, base...)
			b = append(b, "/api/events/"...)
			b = strconv.AppendInt(b, e.ID, 10)
			b = append(b, `"}}}`...)
		}
		b = append(b, "]},"...)
	}
	b = append(b, `"_links":{`...)
	if caller(c) != nil {
		b = appendLink(b, "create-new-event", base, "/api/events")
		b = append(b, ',')
	}
	b = pageLink(b, "first", 0)
	b = append(b, `,"get-an-event":{"href":"`...)
	b = append(b, base...)
	b = append(b, `/api/events/{id}","templated":true},`...)
	b = pageLink(b, "last", max(totalPages-1, 0))
	if q.Page+1 < totalPages {
		b = append(b, ',')
		b = pageLink(b, "next", q.Page+1)
	}
	if q.Page > 0 {
		b = append(b, ',')
		b = pageLink(b, "prev", min(q.Page-1, max(totalPages-1, 0)))
	}
	b = append(b, ',')
	b = appendLink(b, "profile", base, "/docs/index.html#resources-events-list")
	b = append(b, ',')
	b = pageLink(b, "self", q.Page)
	b = append(b, `},"page":{"number":`...)
	b = strconv.AppendInt(b, int64(q.Page), 10)
	b = append(b, `,"size":`...)
	b = strconv.AppendInt(b, int64(q.Size), 10)
	b = append(b, `,"totalElements":`...)
	b = strconv.AppendInt(b, int64(page.Total), 10)
	b = append(b, `,"totalPages":`...)
	b = strconv.AppendInt(b, int64(totalPages), 10)
	buf.b = append(b, "}}"...)
	return s.writeHAL(c, fiber.StatusOK, buf)
}

// appendJSONText appends s as the inside of a JSON string, escaped as
// encoding/json escapes it: ", \ and control characters (\n, \r, \t, \b,
// \f by name), <, > and & (as
// \u003c, \u003e, \u0026), U+2028 and U+2029, and invalid UTF-8 as
// U+FFFD.
func appendJSONText(b []byte, s string) []byte {
	const hex = "0123456789abcdef"
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if jsonSafe[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(b, s[start:]...)
}

// jsonSafe tells the bytes appendJSONText copies as they are: ASCII but
// for control characters, ", \, <, > and &. Read only.
var jsonSafe = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = !strings.ContainsRune(`"\<>&`, rune(c))
	}
	return t
}()

// setHeader sets a response header whose name is already in canonical form
// (the fiber.Header… constants are), without the work of normalizing it
// again on every request.
func setHeader(c *fiber.Ctx, name, value string) {
	c.Response().Header.SetCanonical([]byte(name), []byte(value))
}
