package audit

import (
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// The registry: every check of the audit, each with the rules it may find
// broken, the exchanges it applies to and its judgment. Every exchange of
// every runner (the scenarios' steps, the explorer, the preflight's
// successors) passes through each check that applies to it, in order, and
// every link of every answer, followed once, through each link check, and
// every walk through a listing through each walk check (walks.go); a
// check that fails stops none of the others. What the checks judge by is
// one model of what a conforming target holds (world): the tokens it
// issued and to whom, the events written and by whom, what was offered
// to whom. The lists of rules the audit covers (Rules) are read from
// here.

// check is one judgment of the registry.
type check struct {
	// name says what holds, for people.
	name string
	// rules are the rules its findings name.
	rules []string
	// applies tells whether it judges o.
	applies func(o *observed) bool
	// judge judges o in w.
	judge func(w *world, o *observed) []*Finding
}

// registry is the audit's checks of every exchange, in the order they
// judge one.
var registry = []check{
	{
		name:  "an answer of the token endpoint that holds a token holds what RFC 6749 §5.1 asks, must not be cached, is for the grant and the account asked for, and grants no scope beyond the client's registration",
		rules: []string{"TOK-5", "TOK-7", "TOK-9", "TOK-15", "ACC-1", "CLI-4"},
		applies: func(o *observed) bool {
			return o.x.Method == http.MethodPost && o.path == tokenPath && o.success() && o.doc != nil
		},
		judge: (*world).checkTokenAnswer,
	},
	{
		name:  "a token is issued for the registered client's and an account's exact credentials in a form-encoded POST, and for nothing else; a well-formed grant with them gets one; a client whose Basic authentication failed is challenged",
		rules: []string{"TOK-1", "TOK-2", "TOK-3", "TOK-4", "TOK-10", "TOK-14", "TOK-16", "SVC-7", "TOK-11"},
		applies: func(o *observed) bool {
			return o.path == tokenPath && o.x.Status < 500
		},
		judge: (*world).checkIssuance,
	},
	{
		name:    "a write without a valid token changes nothing; a write with one creates an event its caller manages, or updates an event for its manager alone",
		rules:   []string{"AUTH-1", "AUTH-3", "AUTH-4", "SVC-4", "SVC-7", "TOK-8", "TOK-13", "API-6", "API-9", "AUTH-6", "AUTH-7"},
		applies: func(o *observed) bool { return o.path != "" && o.isWrite() && !o.outsideFilter() },
		judge:   (*world).checkWrite,
	},
	{
		name:  "the API root is served to every caller, and links to the event list",
		rules: []string{"API-1"},
		applies: func(o *observed) bool {
			return o.path == "/api" && o.x.Method == http.MethodGet && !bodyRefused(o.x.Status) && o.x.Status != http.StatusNotModified
		},
		judge: (*world).checkRoot,
	},
	{
		name:  "a GET under /api/ is open to everyone",
		rules: []string{"AUTH-2"},
		applies: func(o *observed) bool {
			return o.underAPI() && o.x.Method == http.MethodGet && o.caller.class == callerAnonymous
		},
		judge: one((*world).checkOpenRead),
	},
	{
		name:  "the documentation is served to every caller, whatever its Authorization header holds",
		rules: []string{"SVC-6", "AUTH-5"},
		applies: func(o *observed) bool {
			return isDocs(o) && o.x.Status < 500 && o.x.Status != http.StatusTooManyRequests
		},
		judge: one((*world).checkDocs),
	},
	{
		name:  "an event created is there until deleted, and a refused request does not remove it",
		rules: []string{"API-6", "AUTH-1", "AUTH-3", "AUTH-4", "AUTH-6", "SVC-4", "TOK-13"},
		applies: func(o *observed) bool {
			return o.x.Method == http.MethodGet && (o.x.Status == http.StatusNotFound || o.x.Status == http.StatusGone)
		},
		judge: one((*world).checkGone),
	},
	{
		name:    "an answer of the reference server is as its OpenAPI document describes it",
		rules:   []string{"API-11"},
		applies: underContract,
		judge:   one((*world).checkContract),
	},
	{
		name:    "a JSON answer of /api/**, and every resource it lists, is HAL",
		rules:   []string{"SVC-2"},
		applies: apiDocument,
		judge:   one(func(_ *world, o *observed) *Finding { return o.checkHAL() }),
	},
	{
		name:    "every href resolves against the answer's address to an address a client can follow",
		rules:   []string{"API-10"},
		applies: apiDocument,
		judge:   one(func(_ *world, o *observed) *Finding { return o.checkHrefs() }),
	},
	{
		name:    "an answer offers its caller what they may do, and nothing they may not",
		rules:   []string{"SVC-3", "API-3", "API-4", "API-8", "API-9", "API-6", "SVC-4", "SVC-7", "TOK-8", "TOK-13", "AUTH-1"},
		applies: apiDocument,
		judge:   (*world).checkOffers,
	},
	{
		name:    "what a read shows of an event is what was last written to it",
		rules:   []string{"API-6", "API-9"},
		applies: apiDocument,
		judge:   (*world).checkReadBack,
	},
}

// linkChecks are the rules of where the links the audit follows lead
// (leads): "self" to the resource itself, "next" and "prev" to the
// adjacent page of the same listing (API-5), "profile" to documentation
// that is served, and every link to something the caller may read
// (SVC-6, AUTH-5, API-7, API-2). A walk through a listing a runner tells
// of (Scope.Walked) is judged whole by walkChecks (API-5).
var linkChecks = []string{"API-10", "API-5", "SVC-6", "AUTH-5", "API-7", "API-2"}

// apiDocument applies to a successful JSON answer of /api/**.
func apiDocument(o *observed) bool { return o.underAPI() && o.success() && o.doc != nil }

// one is a judgment of at most one finding as a judgment of several.
func one(judge func(*world, *observed) *Finding) func(*world, *observed) []*Finding {
	return func(w *world, o *observed) []*Finding {
		if f := judge(w, o); f != nil {
			return []*Finding{f}
		}
		return nil
	}
}

// check judges o by every check of the registry that applies to it, after
// learning what it tells of the world: a token it spent, and what kind
// of answer it is.
func (w *world) check(o *observed) []*Finding {
	w.noteSpent(o)
	if apiDocument(o) {
		o.kind = w.kindOf(o)
		switch o.kind {
		case kindRoot:
			w.learnList(o)
		case kindEvent:
			w.notePresent(o)
		}
	}
	var found []*Finding
	for _, c := range registry {
		if c.applies(o) {
			for _, f := range c.judge(w, o) {
				f.Check = c.name
				found = append(found, f)
			}
		}
	}
	if c := o.caller; c.class == callerValid && c.scheme != "Bearer" && o.underAPI() && len(o.checks) > 0 {
		// Every check of the exchange read the token as its scheme was
		// spelt; one it was not honoured for may find SVC-7 broken
		// (honour.go).
		o.checked("SVC-7")
	}
	return found
}

// Rules returns the rules the audit checks, of the answers that show
// them, in the catalogue's order: those of the registry's checks and of
// the links it follows.
func Rules() []string {
	var out []string
	for _, c := range registry {
		out = append(out, c.rules...)
	}
	out = append(out, linkChecks...)
	slices.SortFunc(out, ruleOrder)
	return slices.Compact(out)
}

// ruleOrder orders rule ids as the catalogue does: by section, then
// number.
func ruleOrder(a, b string) int {
	sections := []string{"SVC", "ACC", "CLI", "TOK", "API", "AUTH", "LIM"}
	sa, na, _ := strings.Cut(a, "-")
	sb, nb, _ := strings.Cut(b, "-")
	if d := slices.Index(sections, sa) - slices.Index(sections, sb); d != 0 {
		return d
	}
	ia, _ := strconv.Atoi(na)
	ib, _ := strconv.Atoi(nb)
	return ia - ib
}
