package explore

import (
	"encoding/json"
	"eventsvc/conformance/mutate"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Kinds of action: each is something a client of the API could do with
// what the answers offer it.
const (
	KindRoot         = "root"              // read the API root
	KindList         = "list"              // read the first page of the event list
	KindWalk         = "walk"              // read every page of the list, through "next"
	KindRead         = "read"              // read one of the sequence's events
	KindFollow       = "follow"            // follow a link of the root, the list or an event
	KindCreate       = "create"            // create an event
	KindUpdate       = "update"            // update one of the sequence's events
	KindGrant        = "grant"             // a password grant: fresh tokens for an account
	KindRefresh      = "refresh"           // a refresh grant with the account's refresh token
	KindAccessAsRefr = "access-as-refresh" // the account's access token sent as a refresh token
	KindWrongLogin   = "wrong-login"       // a token request with wrong credentials
	KindDocs         = "docs"              // read the documentation with a bad Authorization header
	KindTogether     = "together"          // creations, updates, refreshes or password grants of both users, sent at once
	KindVariant      = "variant"           // a request of the sequence varied by an operator of the mutator's catalogue
)

// Callers: who an action acts as.
const (
	AsUser      = "user"      // the user, with their current access token
	AsOther     = "other"     // the other user, with theirs
	AsAnonymous = "anonymous" // no Authorization header
	AsInvalid   = "invalid"   // a made-up bearer token
	AsRefresh   = "refresh"   // the user's refresh token as a bearer token
	AsBasic     = "basic"     // the client's credentials in Basic
)

// Ways to get a login wrong (KindWrongLogin).
const (
	WrongPassword = "wrong password"
	WrongUser     = "unknown user"
	WrongSecret   = "wrong client secret"
	UserAsClient  = "the user's credentials as the client's"
	ClientAsUser  = "the client's credentials as the user's"
)

// wrongLogins are the ways, in the order the generator draws from.
var wrongLogins = []string{WrongPassword, WrongUser, WrongSecret, UserAsClient, ClientAsUser}

// Action is one thing a sequence does. It is data: a replay file holds a
// list of them, and shrinking removes and simplifies them. An action
// names the sequence's events by their order of creation, never by the
// target's ids, so that it means the same in any replay.
type Action struct {
	Kind string `json:"kind"`
	// As is the caller (AsUser, AsOther…); for the token actions, the
	// account (AsUser or AsOther).
	As string `json:"as,omitempty"`
	// Scheme is how the caller spells "Bearer" (spec SVC-7); "" is
	// "Bearer".
	Scheme string `json:"scheme,omitempty"`
	// Event is the sequence's event the action is about: 0 for the first
	// it created (KindRead, KindUpdate, KindFollow from an event).
	Event int `json:"event,omitempty"`
	// From is where KindFollow starts: "root", "list" or "event".
	From string `json:"from,omitempty"`
	// Rel is the relation KindFollow follows, when the answer offers it;
	// otherwise the first relation it offers, in name order.
	Rel string `json:"rel,omitempty"`
	// Size is the page size of KindList and KindWalk; 0 for the target's
	// default.
	Size int `json:"size,omitempty"`
	// Changes are the fields of KindCreate and KindUpdate that differ from
	// the target's accepted event body; the name keeps the run's marks.
	Changes map[string]any `json:"changes,omitempty"`
	// Wrong is how KindWrongLogin gets the login wrong.
	Wrong string `json:"wrong,omitempty"`
	// Op is the operator of the mutator's catalogue (package mutate)
	// that KindVariant applies, and N which of its variants, modulo how
	// many it gives.
	Op string `json:"op,omitempty"`
	N  int    `json:"n,omitempty"`
	// Combined makes KindVariant send the N-th combination of the
	// operator's variants (mutate.Combine) rather than its N-th
	// variant; Members, once sent, are the variants it held, which
	// shrinking splits it into.
	Combined bool  `json:"combined,omitempty"`
	Members  []int `json:"members,omitempty"`
	// Parts are the actions KindTogether sends at once: creations,
	// updates and refreshes of the user and the other user, in the order
	// the sequence numbers the events they create.
	Parts []Action `json:"parts,omitempty"`
}

// caller names the action's caller, for people.
func (a Action) caller() string {
	who := map[string]string{
		AsUser: "the user", AsOther: "the other user", AsAnonymous: "a caller", AsInvalid: "a caller with an invalid token",
		AsRefresh: "a caller with the user's refresh token as a bearer token", AsBasic: "a caller with the client's credentials",
	}[a.As]
	if who == "" {
		return a.As
	}
	return who
}

// String is the action as a step of a sequence reads, for people.
func (a Action) String() string {
	who := a.caller()
	if a.Scheme != "" {
		who += fmt.Sprintf(" (scheme written %q)", a.Scheme)
	}
	account := map[string]string{AsUser: "the user", AsOther: "the other user"}[a.As]
	size := ""
	if a.Size > 0 {
		size = fmt.Sprintf(", %d a page", a.Size)
	}
	switch a.Kind {
	case KindRoot:
		return who + " reads the API root"
	case KindList:
		return who + " reads the event list" + size
	case KindWalk:
		return who + " walks through the event list by its \"next\" links" + size
	case KindRead:
		return fmt.Sprintf("%s reads event #%d", who, a.Event+1)
	case KindFollow:
		from := map[string]string{"root": "the API root", "list": "the event list"}[a.From]
		if from == "" {
			from = fmt.Sprintf("event #%d", a.Event+1)
		}
		return fmt.Sprintf("%s follows the %q link of %s", who, a.Rel, from)
	case KindCreate:
		return who + " creates an event" + changesText(a.Changes)
	case KindUpdate:
		return fmt.Sprintf("%s updates event #%d%s", who, a.Event+1, changesText(a.Changes))
	case KindGrant:
		return account + " gets new tokens with their email and password"
	case KindRefresh:
		return account + " refreshes their access token"
	case KindAccessAsRefr:
		return account + "'s access token is sent as a refresh token"
	case KindWrongLogin:
		return "a token is asked for with " + a.Wrong
	case KindDocs:
		return "a caller with an invalid token reads the documentation page"
	case KindVariant:
		if a.Combined {
			return fmt.Sprintf("%s sends combination %d of %s: %s", who, a.N, variantBase(a), a.Op)
		}
		return fmt.Sprintf("%s sends variant %d of %s: %s", who, a.N, variantBase(a), a.Op)
	case KindTogether:
		parts := make([]string, len(a.Parts))
		for i, p := range a.Parts {
			parts[i] = p.String()
		}
		return "at the same time: " + strings.Join(parts, "; ")
	}
	return a.Kind
}

// changesText says what an event body changes, shortly.
func changesText(changes map[string]any) string {
	if len(changes) == 0 {
		return ""
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(changes)) {
		var b strings.Builder
		e := json.NewEncoder(&b)
		e.SetEscapeHTML(false)
		_ = e.Encode(changes[k])
		v := strings.TrimSpace(b.String())
		if r := []rune(v); len(r) > 60 {
			v = string(r[:40]) + fmt.Sprintf("…(%d characters)", len(r))
		}
		parts = append(parts, k+"="+v)
	}
	return " with " + strings.Join(parts, ", ")
}

// valid refuses an action a replay file cannot mean.
func (a Action) valid() error {
	kinds := []string{KindRoot, KindList, KindWalk, KindRead, KindFollow, KindCreate, KindUpdate, KindGrant, KindRefresh, KindAccessAsRefr, KindWrongLogin, KindDocs, KindTogether, KindVariant}
	if !slices.Contains(kinds, a.Kind) {
		return fmt.Errorf("kind %q: want one of %s", a.Kind, strings.Join(kinds, ", "))
	}
	if a.Kind == KindTogether {
		return a.validTogether()
	}
	if len(a.Parts) > 0 {
		return fmt.Errorf("kind %q has parts: only %q has", a.Kind, KindTogether)
	}
	callers := []string{AsUser, AsOther, AsAnonymous, AsInvalid, AsRefresh, AsBasic}
	switch {
	case a.Kind == KindWrongLogin:
		if !slices.Contains(wrongLogins, a.Wrong) {
			return fmt.Errorf("wrong %q: want one of %s", a.Wrong, strings.Join(wrongLogins, ", "))
		}
	case a.Kind == KindDocs:
	case a.Kind == KindVariant:
		if _, ok := mutate.Find(a.Op); !ok || a.N < 0 {
			return fmt.Errorf("op %q, n %d: want an operator of the catalogue and a variant from 0", a.Op, a.N)
		}
	case a.Kind == KindGrant || a.Kind == KindRefresh || a.Kind == KindAccessAsRefr:
		if a.As != AsUser && a.As != AsOther {
			return fmt.Errorf("as %q: want %s or %s", a.As, AsUser, AsOther)
		}
	case !slices.Contains(callers, a.As):
		return fmt.Errorf("as %q: want one of %s", a.As, strings.Join(callers, ", "))
	}
	if a.Event < 0 || a.Size < 0 || a.Size > 1000 {
		return fmt.Errorf("event %d, size %d: want an event from 0 and a size from 0 to 1000", a.Event, a.Size)
	}
	if a.Kind == KindFollow && a.From != "root" && a.From != "list" && a.From != "event" {
		return fmt.Errorf("from %q: want root, list or event", a.From)
	}
	return nil
}

// maxParts is how many actions KindTogether sends at once at most.
const maxParts = 4

// validTogether refuses a KindTogether a replay file cannot mean: it
// sends 2 to maxParts creations, updates, refreshes and password grants
// of the user and the other user.
func (a Action) validTogether() error {
	if len(a.Parts) < 2 || len(a.Parts) > maxParts {
		return fmt.Errorf("%d parts: want 2 to %d", len(a.Parts), maxParts)
	}
	for i, p := range a.Parts {
		if p.Kind != KindCreate && p.Kind != KindUpdate && p.Kind != KindRefresh && p.Kind != KindGrant {
			return fmt.Errorf("part %d: kind %q: want %s, %s, %s or %s", i+1, p.Kind, KindCreate, KindUpdate, KindRefresh, KindGrant)
		}
		if p.As != AsUser && p.As != AsOther {
			return fmt.Errorf("part %d: as %q: want %s or %s", i+1, p.As, AsUser, AsOther)
		}
		if err := p.valid(); err != nil {
			return fmt.Errorf("part %d: %w", i+1, err)
		}
	}
	return nil
}
