package explore

import (
	"fmt"
	"maps"
	"net/http"
	"slices"
	"strings"

	"eventsvc/conformance/hal"
)

// follow reads the root, the list or an event as the action's caller,
// and follows one of its links. The registry judges both reads, and
// where the link leads (API-10: every href resolves to an address a
// client can follow, and its audit follows every link once and judges
// where it leads by its relation).
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
	if ev != nil {
		s.learnEvent(x, ev)
	}
	if x.status != http.StatusOK {
		return nil, nil
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
	address := x.resolve(links[rel])
	if !followable(address) || rel == "create-new-event" || rel == "update-event" {
		return nil, nil // actions are followed with POST and PUT by the sequences that write
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
	return s.answered(y), nil
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
