package explore

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"eventsvc/conformance/hal"
)

// follow reads the root, the list or an event as the action's caller
// (the registry judges each read), and follows one of its links: it resolves to an address
// a client can follow, and leads where its relation says (API-10).
func (s *sequence) follow(a Action) (*finding, error) {
	var from string
	var ev *event
	switch a.From {
	case "root":
		from = s.r.root
	case "list":
		from = s.r.events
	default:
		if ev = s.event(a.Event); ev == nil {
			return nil, nil
		}
		from = ev.address
	}
	x, f, err := s.get(from, a.As, a.Scheme)
	if err != nil || f != nil {
		return f, err
	}
	switch {
	case ev != nil:
		s.learnEvent(x, ev)
		if x.status != http.StatusOK {
			return nil, nil // the registry judges the read
		}
	case a.From == "list":
		if x.status != http.StatusOK {
			return nil, nil // the registry judges the read
		}
	case x.status != http.StatusOK:
		s.checked("API-1")
		f = s.breaks("API-1", x, "the API root answered %d", x.status)
	}
	if f != nil {
		return f, nil
	}
	links := x.links()
	rel := a.Rel
	if _, ok := links[rel]; !ok {
		rels := slices.Sorted(maps.Keys(links))
		if len(rels) == 0 {
			return nil, nil
		}
		rel = rels[0]
	}
	s.checked("API-10")
	address := x.resolve(links[rel])
	if !followable(address) {
		return s.breaks("API-10", x, "the %q link %q does not resolve to an address a client can follow", rel, links[rel]), nil
	}
	if rel == "create-new-event" || rel == "update-event" {
		return nil, nil // actions: followed with POST and PUT by the sequences that write
	}
	if templated(x.doc, rel) {
		if ev == nil || ev.id == "" || !strings.Contains(address, "{id}") || strings.Count(address, "{") != 1 {
			return nil, nil
		}
		address = hal.Expand(address, map[string]string{"id": ev.id})
	}
	y, err := s.send(request{method: http.MethodGet, address: address, auth: s.auth(a.As, a.Scheme), via: fmt.Sprintf("the %q link in the answer to GET %s", rel, x.url.Path)})
	if err != nil {
		return nil, err
	}
	if f := s.answered(y); f != nil {
		return f, nil
	}
	if y.status < 200 || y.status > 299 {
		return s.breaks("API-10", y, "the %q link of %s leads to an answer of %d", rel, s.r.redactor.String(x.url.String()), y.status), nil
	}
	switch {
	case rel == "profile" && strings.TrimSpace(string(y.body)) == "":
		return s.breaks("API-10", y, "the \"profile\" link leads to an empty page"), nil
	case rel == "self" && ev != nil && !sameEvent(x, y):
		return s.breaks("API-10", y, "the \"self\" link of event #%d leads to another resource", a.Event+1), nil
	case rel == "get-an-event" && ev != nil && !sameEvent(x, y):
		return s.breaks("API-10", y, "the \"get-an-event\" template, filled with the id of event #%d, leads to another event", a.Event+1), nil
	}
	return nil, nil
}

// followable reports whether address is one a client can follow.
func followable(address string) bool {
	return strings.HasPrefix(address, "http://") || strings.HasPrefix(address, "https://")
}

// templated reports whether rel of doc is a URI template.
func templated(doc map[string]any, rel string) bool {
	links, _ := doc["_links"].(map[string]any)
	link, _ := links[rel].(map[string]any)
	t, _ := link["templated"].(bool)
	return t || strings.Contains(hal.Links(doc)[rel], "{")
}

// sameEvent reports whether y shows the event x shows: the same "id", or,
// without ids, the same "self" link.
func sameEvent(x, y *answer) bool {
	if id, ok := x.doc["id"]; ok {
		return jsonText(plain(id)) == jsonText(plain(y.doc["id"]))
	}
	return x.resolve(x.links()["self"]) == y.resolve(y.links()["self"])
}
