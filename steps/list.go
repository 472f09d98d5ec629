package steps

import (
	"fmt"
	"slices"
	"strings"

	"eventsvc/conformance/hal"
)

// Reading the event list, and what the reference server says of a page.

func (s *scenario) registerListSteps(sc stepRegistry) {
	sc.Step(`^`+actor+` lists the events$`, func(who string) error { return s.listEvents(who, "") })
	sc.Step(`^a caller lists the events with the query "([^"]*)"$`, func(q string) error { return s.listEvents("a caller", q) })
	sc.Step(`^the page holds (\d+) events?$`, s.pageHolds)
	sc.Step(`^the page reports (\d+) events in (\d+) pages, this being page (\d+)$`, s.pageReports)
	sc.Step(`^the events are listed in the order "([^"]*)"$`, s.listedInOrder)
	sc.Step(`^the event list holds some number of events$`, s.countEvents)
	sc.Step(`^the event list holds as many events as before$`, s.sameNumberOfEvents)
}

func (s *scenario) listEvents(who, query string) error {
	address, err := s.eventsAddress()
	if err != nil {
		return err
	}
	return s.whenAs(who, kindList, s.at("GET", withQuery(address, query)))
}

// answerItems returns the events the answer lists.
func (s *scenario) answerItems() ([]map[string]any, *exchange, error) {
	x, obj, err := s.answerObject()
	if err != nil {
		return nil, x, err
	}
	return hal.Items(obj), x, nil
}

func (s *scenario) pageHolds(n int) error {
	items, x, err := s.answerItems()
	if err == nil && len(items) != n {
		err = s.failf(x, "the page holds %d events, want %d", len(items), n)
	}
	return err
}

// pageReports checks the reference server's page metadata.
func (s *scenario) pageReports(total, pages, number int) error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	v, err := x.field("page")
	if err != nil {
		return s.about(x, err)
	}
	p, _ := v.(map[string]any)
	want := map[string]any{"totalElements": float64(total), "totalPages": float64(pages), "number": float64(number)}
	for k, w := range want {
		if p[k] != w {
			return s.failf(x, "page.%s is %v, want %v", k, p[k], w)
		}
	}
	return nil
}

func (s *scenario) listedInOrder(list string) error {
	items, x, err := s.answerItems()
	if err != nil {
		return err
	}
	var got []string
	for _, item := range items {
		name, _ := item["name"].(string)
		got = append(got, plainName(name))
	}
	if want := splitList(list); !slices.Equal(got, want) {
		return s.failf(x, "events listed as %q, want %q", strings.Join(got, ", "), strings.Join(want, ", "))
	}
	return nil
}

// countEvents counts the events of the whole list, page by page.
func (s *scenario) countEvents() error {
	n, err := s.numberOfEvents()
	s.events.count = n
	return err
}

func (s *scenario) sameNumberOfEvents() error {
	n, err := s.numberOfEvents()
	if err == nil && n != s.events.count {
		err = fmt.Errorf("the event list holds %d events; it held %d before", n, s.events.count)
	}
	return err
}

func (s *scenario) numberOfEvents() (int, error) {
	n := 0
	err := s.eachPage(func(p page, _ *exchange) error {
		n += len(p.items)
		return nil
	})
	return n, err
}
