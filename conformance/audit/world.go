package audit

import (
	"encoding/json"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// world is what the audit knows of one target: the address of its event
// list, the tokens it issued, the events written to it, and its clock as
// far as the run moved it. An in-process run has a world for each
// scenario's server; a run against a deployment has one.
type world struct {
	a    *Audit
	base string // the address under which /api and /oauth/token are served
	// parent is the world a fork was made from (Scope.Fork), whose budget
	// of links and connections it shares; nil for a world of its own.
	parent *world
	// logins is true for a world whose server holds the run's
	// credentials, and them alone of the run's client and accounts
	// (Scope.Move): issuance is judged by them.
	logins bool

	mu      sync.Mutex
	offset  time.Duration // how far the run moved the target's clock
	list    string        // the event list's address, from the API root's "events" link
	tokens  map[string]*token
	madeUps map[string]bool
	events  map[string]*event // by key
	writes  []span            // writes under /api/ sent, for walks that compare pages (in the family: family)
	// anonymousOffered are the addresses (pages, events) at which an
	// anonymous caller was offered an action ("create-new-event" or
	// "update-event"): offered to anyone, it was not for the credentials
	// another caller sent.
	anonymousOffered map[string]bool
	// takenFromAnyone are the writes (method and path) a target took
	// from an anonymous caller: taken from another caller without a
	// valid token too, it was not for the credentials that one sent.
	takenFromAnyone map[string]bool
	// anonymousProbed counts the reads without credentials of each
	// relation and address, to tell whether it is offered to anyone
	// (probeAnonymous).
	anonymousProbed map[string]int
	// offered are the uses of an account's valid token that were offered
	// an action at an address: a token not offered it there, sent
	// another way, is not taken for its account (honourBlames).
	offered map[string][]use // by account and address
	// updatedWith are the uses of an account's valid token that updated
	// an event, by account and address.
	updatedWith map[string][]use
	// createdWith are the uses of an account's valid token that created
	// an event, by account.
	createdWith map[string][]use
	// listed are the addresses of events the world's answers named: the
	// self links of listed events. What one offers is checked as an
	// event's.
	listed map[string]bool
	// offeredTo are, of an event whose manager the audit did not see
	// created, the tokens of each account offered its "update-event", the
	// first of each: an event has one manager.
	offeredTo map[string][]use
	// refusedCreators are the tokens whose update of an event their
	// account created was refused as not its manager's.
	refusedCreators []*token
	// managersOffered is true once an event the audit saw created offered
	// its manager "update-event" before any update of it.
	managersOffered bool
	// served are the answers whose links depend on their caller, kept
	// to tell one served to callers who must be answered differently
	// (shared.go).
	served served
	// ownedIDs are the ids a write sent in its body that the target took
	// (ownedTaken): a resource that shows one is that fault's, told once.
	ownedIDs map[string]bool
	// identity is what the world learned of whom its access tokens act
	// for (identity.go).
	identity map[*token]*actsAs
	// refusedNotManager are, by account, the tokens whose update of an
	// event the account does not manage was refused with 403.
	refusedNotManager map[string][]*token
	// sharedReaders are, in a run's root world, the access tokens ("" for
	// none) of the callers given an answer meant for another
	// (noteSharedRead).
	sharedReaders []string
}

func newWorld(a *Audit, base string) *world {
	return &world{a: a, base: strings.TrimRight(base, "/"), logins: true, tokens: map[string]*token{}, madeUps: map[string]bool{}, events: map[string]*event{}, anonymousOffered: map[string]bool{}, takenFromAnyone: map[string]bool{}, anonymousProbed: map[string]int{}, offered: map[string][]use{}, updatedWith: map[string][]use{}, createdWith: map[string][]use{}, listed: map[string]bool{}, offeredTo: map[string][]use{}, ownedIDs: map[string]bool{}, refusedNotManager: map[string][]*token{}}
}

// family is the world whose budget of links to follow and whose
// connections w shares: the world it was forked from, or w itself.
func (w *world) family() *world {
	for w.parent != nil {
		w = w.parent
	}
	return w
}

// inherit makes w, a fork of p, know what p knows of the target itself:
// the tokens it issued, the tokens made up, the address of its list, how
// far its clock moved, and what it offers to anyone. Of the events p saw
// written, w knows nothing.
func (w *world) inherit(p *world) {
	p.mu.Lock()
	defer p.mu.Unlock()
	w.mu.Lock()
	defer w.mu.Unlock()
	w.parent = p
	w.offset, w.list, w.logins = p.offset, p.list, p.logins
	for k, t := range p.tokens {
		c := *t
		c.scope = slices.Clone(t.scope)
		c.uses = slices.Clone(t.uses)
		w.tokens[k] = &c
	}
	maps.Copy(w.madeUps, p.madeUps)
	maps.Copy(w.anonymousProbed, p.anonymousProbed)
	maps.Copy(w.anonymousOffered, p.anonymousOffered)
}

// span is when a request was sent and its answer read.
type span struct{ start, end time.Time }

// meets reports whether s and o were under way at the same moment.
func (s span) meets(o span) bool { return s.start.Before(o.end) && o.start.Before(s.end) }

// advance moves the world's clock.
func (w *world) advance(d time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.offset += d
}

// madeUp notes credentials no target holds: tokens it did not issue,
// usernames and passwords of no account.
func (w *world) madeUp(creds ...string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, c := range creds {
		w.madeUps[c] = true
	}
}

// now is the world's time at the real time t.
func (w *world) at(t time.Time) time.Time {
	w.mu.Lock()
	defer w.mu.Unlock()
	return t.Add(w.offset)
}

// observed is one exchange as the checks read it.
type observed struct {
	w       *world
	x       Exchange
	url     *url.URL
	path    string         // the path under the world's base: "/api/events"
	doc     map[string]any // the answer's body, when it is a JSON object
	isJSON  bool
	form    url.Values // the request's form, when it sent one
	reqJSON map[string]any
	caller  caller
	checks  []string // the rules checked, one entry a check
	kind    string   // what the answer is (kinds below), when known
	// contract is set for an exchange of a scope whose exchanges are
	// checked against the OpenAPI document (Scope.CheckContract).
	contract bool
}

// Kinds of answers whose checks depend on what they are.
const (
	kindRoot  = "the API root"
	kindPage  = "a page of the event list"
	kindEvent = "an event"
)

func newObserved(w *world, x Exchange) *observed {
	o := &observed{w: w, x: x}
	u, err := url.Parse(x.URL)
	if err != nil {
		return o
	}
	o.url = u
	if base, err := url.Parse(w.base); err == nil && sameOrigin(base, u) {
		o.path = strings.TrimPrefix(unreserved(u.EscapedPath()), strings.TrimRight(base.EscapedPath(), "/"))
	}
	if isJSONType(x.RespHeader.Get("Content-Type")) {
		var v any
		if json.Unmarshal(x.RespBody, &v) == nil {
			o.isJSON = true
			o.doc, _ = v.(map[string]any)
		}
	}
	ct := x.Header.Get("Content-Type")
	if mt, _, _ := mime.ParseMediaType(ct); mt == "application/x-www-form-urlencoded" {
		o.form, _ = url.ParseQuery(string(x.Body))
	}
	if isJSONType(ct) {
		_ = json.Unmarshal(x.Body, &o.reqJSON)
	}
	o.caller = w.callerOf(o)
	return o
}

// checked counts a check of each rule.
func (o *observed) checked(rules ...string) { o.checks = append(o.checks, rules...) }

// success reports whether the answer is a 2xx.
func (o *observed) success() bool { return o.x.Status >= 200 && o.x.Status <= 299 }

// underAPI reports whether the request went to a path under /api of the
// world's base (spec AUTH-2, AUTH-3).
func (o *observed) underAPI() bool { return o.path == "/api" || strings.HasPrefix(o.path, "/api/") }

// followable reports whether the answer's links are to be followed: a
// success with links, at the world's origin.
func (o *observed) followable() bool {
	return o.success() && o.doc != nil && o.path != "" && o.x.Method != http.MethodDelete && !o.mustNotBe()
}

// mustNotBe reports whether o answers a write that must have been
// refused: one without a valid token, taken. Its refusal is the finding;
// where the links of an answer that must not be lead tells nothing more.
func (o *observed) mustNotBe() bool {
	c := o.caller.class
	return o.isWrite() && o.success() && c != callerValid && c != callerUncertain && !o.outsideFilter()
}

// resolve resolves an href of the answer against its address.
func (o *observed) resolve(href string) (*url.URL, bool) {
	if href == "" {
		return nil, false // no link at all
	}
	ref, err := url.Parse(href)
	if err != nil {
		return nil, false
	}
	u := o.url.ResolveReference(ref)
	return u, u.IsAbs() && u.Host != "" && (u.Scheme == "http" || u.Scheme == "https")
}

// unreserved decodes the percent-encoded unreserved characters of an
// escaped path: RFC 3986 §2.3 makes "/%61pi" and "/api" the same path.
func unreserved(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '%' && i+2 < len(p) {
			var c byte
			if _, err := fmt.Sscanf(p[i+1:i+3], "%02x", &c); err == nil && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~", c) >= 0) {
				b.WriteByte(c)
				i += 2
				continue
			}
		}
		b.WriteByte(p[i])
	}
	return b.String()
}

func isJSONType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json"))
}

// sameOrigin reports whether a and b have the same scheme, host and port.
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(hostPort(a), hostPort(b))
}

func hostPort(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(u.Hostname()) + ":" + port
}

// key is how the audit names an address: without its fragment, its
// scheme, host and default port normalised.
func key(u *url.URL) string {
	c := *u
	c.Fragment, c.RawFragment = "", ""
	c.Scheme = strings.ToLower(c.Scheme)
	c.Host = hostPort(u)
	return c.String()
}

// listKey is the address of a page without its query: the listing it
// belongs to.
func listKey(u *url.URL) string {
	c := *u
	c.RawQuery, c.ForceQuery = "", false
	return key(&c)
}

// decode reads a JSON body into a value, numbers as float64.
func decode(body []byte) (any, bool) {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return nil, false
	}
	return v, true
}
