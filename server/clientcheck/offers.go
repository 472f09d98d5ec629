package clientcheck

import (
	"bytes"
	"encoding/json"
	"net/url"
	"sort"
	"strings"
)

// MaxOffers bounds the shapes of addresses, event ids and write links a
// Checker keeps. Past it, it keeps no more, and judges no more addresses
// (API-1) nor writes (API-4, API-8, AUTH-6) for the rest of its life:
// what it might have dropped gives no finding rather than a false one.
const MaxOffers = 100_000

// eventsPath is the event list's path, and the events' addresses are
// under it.
const eventsPath = "/api/events"

// offers is what the server offered: to anyone, as addresses (a link of
// any relation, the list's get-an-event template, a Location), kept as
// shapes; and to each caller, the writes its links offered.
type offers struct {
	template bool                // the get-an-event template: every event's address
	events   map[string]struct{} // the ids of events whose address was offered
	shapes   map[string]struct{} // every other address, by shape
	writes   map[Caller]*writes
	size     int  // entries in all
	full     bool // MaxOffers was reached
	// seen are the hrefs kept already (a write link's with its caller
	// and relation): most answers offer what others offered, and their
	// hrefs need not be read again. A cache of up to MaxOffers.
	seen map[string]struct{}
	key  []byte // the key of seen being looked up, its buffer
}

// writes are the write links offered to one caller.
type writes struct {
	create bool                // create-new-event
	update map[string]struct{} // update-event, by event id
}

func newOffers() offers {
	return offers{events: map[string]struct{}{}, shapes: map[string]struct{}{}, writes: map[Caller]*writes{}, seen: map[string]struct{}{}}
}

// link is a link of an answer: its relation and its href, slices of
// the answer's body (the href decoded when it had escapes), read while
// the body is.
type link struct{ rel, href []byte }

// readLinks reads the links of a HAL body, each an object `"rel":{"href":
// …}` as the server writes them, without decoding the whole body.
func readLinks(body []byte) []link {
	out := make([]link, 0, 8)
	const open = `{"href":"`
	for rest := body; ; {
		i := bytes.Index(rest, []byte(open))
		if i < 0 {
			return out
		}
		rel := relBefore(rest[:i])
		rest = rest[i+len(open)-1:] // at the href's opening quote
		end := closingQuote(rest)
		if end < 0 {
			return out
		}
		href := rest[1:end]
		if bytes.IndexByte(href, '\\') >= 0 { // escaped: decode it
			var text string
			if err := json.Unmarshal(rest[:end+1], &text); err != nil {
				text = ""
			}
			href = []byte(text)
		}
		if len(href) > 0 {
			out = append(out, link{rel: rel, href: href})
		}
		rest = rest[end+1:]
	}
}

// relBefore is the key of the member whose value starts where b ends:
// `…"rel":` gives "rel".
func relBefore(b []byte) []byte {
	if len(b) < 3 || b[len(b)-1] != ':' || b[len(b)-2] != '"' {
		return nil
	}
	start := bytes.LastIndexByte(b[:len(b)-2], '"')
	if start < 0 {
		return nil
	}
	return b[start+1 : len(b)-2]
}

// closingQuote is the index of the quote that closes the JSON string b
// opens, or -1.
func closingQuote(b []byte) int {
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// address reads an href as the path and query a client would request,
// whatever host built it: its path without prefix, the path under which
// the server's public URL or its proxy serves the API. ok is false for an
// address outside the API.
func address(href, prefix string) (path string, query url.Values, ok bool) {
	u, err := url.Parse(href)
	if err != nil {
		return "", nil, false
	}
	p := u.Path
	if prefix != "" && strings.HasPrefix(p, prefix+"/") {
		p = p[len(prefix):]
	}
	if p != "/api" && !strings.HasPrefix(p, "/api/") {
		return "", nil, false
	}
	return p, u.Query(), true
}

// eventID is the id of an event's address, "/api/events/{id}", or "".
func eventID(path string) string {
	id, ok := strings.CutPrefix(path, eventsPath+"/")
	if !ok || id == "" || strings.Contains(id, "/") {
		return ""
	}
	return id
}

// shape is an address as the checker keeps it: a page of the list by its
// parameters but the page number ("page=*&size=20"), any other address
// whole.
func shape(path string, query url.Values) string {
	if path != eventsPath {
		if len(query) == 0 {
			return path
		}
		return path + "?" + query.Encode()
	}
	var parts []string
	for k, vs := range query {
		for _, v := range vs {
			v = url.QueryEscape(v)
			if k == "page" {
				v = "*"
			}
			parts = append(parts, url.QueryEscape(k)+"="+v)
		}
	}
	sort.Strings(parts)
	return path + "?" + strings.Join(parts, "&")
}

// offered reports whether a request to path and query was offered, and
// whether the checker can tell (it cannot for an event it may have
// dropped).
func (o *offers) offered(path string, query url.Values) (yes, known bool) {
	if (path == "/api" || path == "/api/") && len(query) == 0 { // the entry, given out of band
		return true, true
	}
	if id := eventID(path); id != "" && len(query) == 0 {
		_, ok := o.events[id]
		return o.template || ok, !o.full
	}
	_, ok := o.shapes[shape(path, query)]
	return ok, !o.full
}

// canWrite reports whether the write links offered to c include the
// creation (id "") or the update of event id, and whether the checker can
// tell.
func (o *offers) canWrite(c Caller, id string) (yes, known bool) {
	w := o.writes[c]
	switch {
	case w == nil:
		return false, !o.full
	case id == "":
		return w.create, !o.full
	}
	_, ok := w.update[id]
	return ok, !o.full
}

// record keeps what x's answer offered: its Location and its links, to
// anyone as addresses, and its write links to x's caller.
func (o *offers) record(x Exchange, links []link) {
	if x.Location != "" {
		o.add(x.Caller, x.Prefix, link{rel: []byte("location"), href: []byte(x.Location)})
	}
	for _, l := range links {
		o.add(x.Caller, x.Prefix, l)
	}
}

// add keeps one offered link, its address under prefix.
func (o *offers) add(c Caller, prefix string, l link) {
	write := string(l.rel) == "update-event" || string(l.rel) == "create-new-event"
	o.key = append(o.key[:0], l.href...)
	if write {
		o.key = append(append(append(append(append(append(o.key, 0), c.ClientID...), 0), c.User...), 0), l.rel...)
	}
	if _, ok := o.seen[string(o.key)]; ok {
		return
	}
	path, query, ok := address(string(l.href), prefix)
	if !ok || o.full {
		return
	}
	if len(o.seen) >= MaxOffers {
		clear(o.seen)
	}
	o.seen[string(o.key)] = struct{}{}
	if path == eventsPath+"/{id}" {
		o.template = true
		return
	}
	id := eventID(path)
	if id != "" && len(query) == 0 {
		o.put(o.events, id)
	} else {
		o.put(o.shapes, shape(path, query))
	}
	if c == (Caller{}) || !write {
		return
	}
	w := o.writes[c]
	if w == nil {
		w = &writes{update: map[string]struct{}{}}
		o.writes[c] = w
		o.size++
	}
	if string(l.rel) == "create-new-event" {
		w.create = true
	} else if id != "" {
		o.put(w.update, id)
	}
}

// put adds key to set, within MaxOffers.
func (o *offers) put(set map[string]struct{}, key string) {
	if _, ok := set[key]; ok {
		return
	}
	if o.size >= MaxOffers {
		o.full = true
		return
	}
	set[key] = struct{}{}
	o.size++
}
