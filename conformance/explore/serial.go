package explore

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"eventsvc/conformance/jsonvalue"
)

// What creations and updates sent at once may do: whatever some serial
// order of them does. Distinct creations make distinct events, none lost
// (API-6); updates of one event leave it as one of those taken wrote it,
// whole, or as it was when none was taken (API-9), and another user's,
// refused, changes nothing (AUTH-6). Refreshes are in refreshed.go.

// updated is an event that actions sent at once updated.
type updated struct {
	ev      *event
	taken   []map[string]any // the bodies of its manager's updates that were taken
	refused []map[string]any // the bodies of other users' updates, refused
}

// createdTogether checks the answers to the creations sent at once, as
// create does, and that each made an event of its own: no two given one
// address or one id, nor that of an event the sequence holds (API-6). It
// returns the events made, in the order of the parts.
func (s *sequence) createdTogether(parts []*part) ([]*event, *finding) {
	var made []*event
	for _, p := range parts {
		if p.action.Kind != KindCreate {
			continue
		}
		a, x := p.action, p.x
		s.checked("API-6")
		switch {
		case x.status == http.StatusBadRequest || x.status == http.StatusUnprocessableEntity:
			continue
		case (x.status == http.StatusUnauthorized || x.status == http.StatusForbidden) && refreshes(parts, a.As):
			continue // sent with the token a refresh replaced
		case x.status == http.StatusUnauthorized || x.status == http.StatusForbidden:
			return nil, s.breaks(s.tokenBlame(a.As, a.Scheme, "API-6"), x, "a creation by %s, who holds a valid token, sent at the same time as %s, was refused: %d", callerText(a.As), others(parts, p), x.status)
		case x.status < 200 || x.status > 299:
			return nil, s.breaks("API-6", x, "a creation by %s, sent at the same time as %s, answered %d", callerText(a.As), others(parts, p), x.status)
		}
		address := x.header.Get("Location")
		if address == "" {
			address = x.links()["self"]
		}
		if address == "" {
			continue // the event cannot be found again
		}
		ev := &event{address: x.resolve(address), manager: a.As, fields: p.body}
		if id, ok := x.doc["id"]; ok {
			ev.id = strings.Trim(jsonText(id), `"`)
		}
		if f := s.distinct(ev, x, made); f != nil {
			return nil, f
		}
		made = append(made, ev)
	}
	return made, nil
}

// distinct checks that ev, made by the creation answered x, is an event
// of its own (API-6): no event the sequence holds, nor one of made,
// created at the same time, was given its address or its id.
func (s *sequence) distinct(ev *event, x *answer, made []*event) *finding {
	n := len(s.m.events) + len(made) + 1
	for i, other := range slices.Concat(s.m.events, made) {
		what := fmt.Sprintf("event #%d", i+1)
		if i >= len(s.m.events) {
			what += ", created at the same time"
		}
		switch {
		case sameAddress(ev.address, other.address):
			return s.breaks("API-6", x, "the creation of event #%d by %s was given the address of %s, %s: two creations made one event", n, callerText(ev.manager), what, s.r.redactor.String(ev.address))
		case ev.id != "" && ev.id == other.id:
			return s.breaks("API-6", x, "the creation of event #%d by %s was given the id of %s, %s: two creations made one event", n, callerText(ev.manager), what, s.r.redactor.String(ev.id))
		}
	}
	return nil
}

// updatedTogether checks the answers to the updates sent at once, as
// update does: its manager's are taken (API-9), another user's refused
// with 403 (AUTH-6). It returns the events updated, in the order of the
// parts, with the bodies taken.
func (s *sequence) updatedTogether(parts []*part) ([]*updated, *finding) {
	var out []*updated
	byEvent := map[*event]*updated{}
	for _, p := range parts {
		if p.action.Kind != KindUpdate {
			continue
		}
		a, x, ev := p.action, p.x, p.ev
		u := byEvent[ev]
		if u == nil {
			u = &updated{ev: ev}
			byEvent[ev] = u
			out = append(out, u)
		}
		ok := x.status >= 200 && x.status <= 299
		revoked := (x.status == http.StatusUnauthorized || x.status == http.StatusForbidden) && refreshes(parts, a.As)
		n := s.index(ev) + 1
		if manages(a.As, ev) {
			s.checked("API-9")
			switch {
			case ok:
				u.taken = append(u.taken, p.body)
			case revoked, x.status == http.StatusBadRequest || x.status == http.StatusUnprocessableEntity:
			case x.status == http.StatusUnauthorized || x.status == http.StatusForbidden:
				return nil, s.breaks(s.tokenBlame(a.As, a.Scheme, "API-9"), x, "the update of event #%d by %s, its manager, sent at the same time as %s, was refused: %d", n, callerText(a.As), others(parts, p), x.status)
			default:
				return nil, s.breaks("API-9", x, "the update of event #%d by %s, its manager, sent at the same time as %s, answered %d", n, callerText(a.As), others(parts, p), x.status)
			}
			continue
		}
		s.checked("AUTH-6")
		u.refused = append(u.refused, p.body)
		switch {
		case ok:
			return nil, s.breaks("AUTH-6", x, "%s updated event #%d, which they do not manage, at the same time as %s: %d", callerText(a.As), n, others(parts, p), x.status)
		case revoked:
		case x.status == http.StatusUnauthorized:
			return nil, s.breaks(s.tokenBlame(a.As, a.Scheme, "AUTH-6"), x, "the update of event #%d by %s, who holds a valid token but does not manage it, answered 401, not 403", n, callerText(a.As))
		case x.status != http.StatusForbidden:
			return nil, s.breaks("AUTH-6", x, "the update of event #%d by %s, who does not manage it, answered %d, not 403", n, callerText(a.As), x.status)
		}
	}
	return out, nil
}

// readAfterUpdates reads an event updated by actions sent at once: it
// reads back as one of the bodies taken, whole, since the last applied
// wins in any order; a mix of two is none (API-9). With none taken, it
// reads back as before.
func (s *sequence) readAfterUpdates(u *updated) (*finding, error) {
	ev := u.ev
	y, f, err := s.get(ev.address, AsAnonymous, "")
	if err != nil || f != nil {
		return f, err
	}
	if y.status != http.StatusOK || len(u.taken) == 0 {
		return nil, nil // the registry judges the read
	}
	s.checked("API-9")
	var differences []string
	for i, body := range u.taken {
		k, got, ok := differs(y, body)
		if !ok {
			ev.fields = body
			return nil, nil
		}
		differences = append(differences, fmt.Sprintf("%q reads back as %s where update %d of them wrote %s", k, jsonvalue.Describe(got), i+1, jsonvalue.Describe(body[k])))
	}
	if k, got, ok := leaked(y, ev.fields, u.taken, u.refused); ok {
		s.checked("AUTH-6")
		return s.breaks("AUTH-6", y, "event #%d reads back as none of the %d updates of it taken at the same time, with %q as %s, as another user's update, refused, wrote it", s.index(ev)+1, len(u.taken), k, jsonvalue.Describe(got)), nil
	}
	return s.breaks("API-9", y, "event #%d reads back as none of the %d updates of it taken at the same time, whole: %s", s.index(ev)+1, len(u.taken), strings.Join(differences, "; ")), nil
}

// leaked returns a field that a shows as one of refused wrote it, and
// neither before nor any of taken did, and what a shows: a refused
// update changed the event.
func leaked(a *answer, before map[string]any, taken, refused []map[string]any) (string, any, bool) {
	for _, k := range slices.Sorted(maps.Keys(before)) {
		got, shown := a.doc[k]
		if !shown || jsonvalue.SameWritten(before[k], plain(got)) {
			continue
		}
		wrote := func(bodies []map[string]any) bool {
			return slices.ContainsFunc(bodies, func(b map[string]any) bool { return jsonvalue.SameWritten(b[k], plain(got)) })
		}
		if wrote(refused) && !wrote(taken) {
			return k, plain(got), true
		}
	}
	return "", nil, false
}

// differs returns the first field of body, in name order, that a shows
// otherwise than written, and what a shows.
func differs(a *answer, body map[string]any) (string, any, bool) {
	for _, k := range slices.Sorted(maps.Keys(body)) {
		got, shown := a.doc[k]
		if shown && !jsonvalue.SameWritten(body[k], plain(got)) {
			return k, plain(got), true
		}
	}
	return "", nil, false
}

// readAfterCreation reads ev, created with others at the same time, as
// its creator: it is there (API-6); what the read shows, the registry
// judges (the link offered its creator, every field as created), and a
// read that does not offer its creator "update-event" is followed by the
// creator's update of it as it is.
func (s *sequence) readAfterCreation(ev *event) (*finding, error) {
	x, f, err := s.get(ev.address, ev.manager, "")
	if err != nil || f != nil {
		return f, err
	}
	if x.status == http.StatusNotFound || x.status == http.StatusGone {
		s.checked("API-6")
		return s.breaks("API-6", x, "event #%d, created by %s with other actions sent at the same time, is not there: reading it answered %d", s.index(ev)+1, callerText(ev.manager), x.status), nil
	}
	s.learnEvent(x, ev) // the registry judges the read
	if _, offered := x.links()["update-event"]; x.status != http.StatusOK || offered {
		return nil, nil
	}
	// Not offered "update-event": whether its creator manages it tells
	// the registry which rule that breaks (API-8 for the link, API-6 for
	// a creation that made someone else its manager). The creator puts
	// it as it is, which changes nothing.
	raw, _ := json.Marshal(ev.fields)
	y, err := s.send(request{method: http.MethodPut, address: ev.address, auth: s.auth(ev.manager, ""), contentType: "application/json", body: raw})
	if err != nil {
		return nil, err
	}
	return s.answered(y), nil
}

// others names the actions sent at the same time as p.
func others(parts []*part, p *part) string {
	var out []string
	for _, q := range parts {
		if q != p {
			out = append(out, q.action.String())
		}
	}
	return strings.Join(out, "; ")
}
