package explore

import (
	"encoding/json"
	"net/http"
	"strings"

	"eventsvc/conformance/jsonvalue"
)

// What creations and updates sent at once may do: whatever some serial
// order of them does. Distinct creations make distinct events, none lost
// (API-6); updates of one event leave it as one of those taken wrote it,
// whole, or as it was when none was taken (API-9), and another user's,
// refused, changes nothing (AUTH-6). The registry judges all of it, from
// the reads after them (its read-back allows every write under way); the
// sequence learns what its events hold. Refreshes are in refreshed.go.

// updated is an event that actions sent at once updated.
type updated struct {
	ev    *event
	taken []map[string]any // the bodies of its manager's updates that were taken
}

// createdTogether returns the events the creations sent at once made,
// in the order of the parts; the registry judges their answers (each a
// new event of its own, API-6).
func (s *sequence) createdTogether(parts []*part) []*event {
	var made []*event
	for _, p := range parts {
		a, x := p.action, p.x
		if a.Kind != KindCreate || x.status < 200 || x.status > 299 {
			continue
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
		made = append(made, ev)
	}
	return made
}

// updatedTogether returns the events the updates sent at once were
// about, in the order of the parts, with the bodies of their managers'
// updates taken; the registry judges their answers (its manager's taken,
// API-9; another user's refused with 403, AUTH-6).
func (s *sequence) updatedTogether(parts []*part) []*updated {
	var out []*updated
	byEvent := map[*event]*updated{}
	for _, p := range parts {
		if p.action.Kind != KindUpdate {
			continue
		}
		u := byEvent[p.ev]
		if u == nil {
			u = &updated{ev: p.ev}
			byEvent[p.ev] = u
			out = append(out, u)
		}
		if manages(p.action.As, p.ev) && p.x.status >= 200 && p.x.status <= 299 {
			u.taken = append(u.taken, p.body)
		}
	}
	return out
}

// readAfterUpdates reads an event updated by actions sent at once, which
// the registry judges (one of the bodies taken, whole, since the last
// applied wins in any order; as it was when none was taken), and learns
// which body it holds.
func (s *sequence) readAfterUpdates(u *updated) (*finding, error) {
	ev := u.ev
	y, f, err := s.get(ev.address, AsAnonymous, "")
	if err != nil || f != nil || y.status != http.StatusOK {
		return f, err
	}
	for _, body := range u.taken {
		if !differs(y, body) {
			ev.fields = body
			break
		}
	}
	return nil, nil
}

// differs reports whether a shows a field of body otherwise than
// written.
func differs(a *answer, body map[string]any) bool {
	for k, v := range body {
		if got, shown := a.doc[k]; shown && !jsonvalue.SameWritten(v, plain(got)) {
			return true
		}
	}
	return false
}

// readAfterCreation reads ev, created with others at the same time, as
// its creator; the registry judges what the read shows (it is there,
// API-6; the link offered its creator; every field as created), and a
// read that does not offer its creator "update-event" is followed by the
// creator's update of it as it is.
func (s *sequence) readAfterCreation(ev *event) (*finding, error) {
	x, f, err := s.get(ev.address, ev.manager, "")
	if err != nil || f != nil {
		return f, err
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
