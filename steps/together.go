package steps

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"slices"

	"github.com/gavv/httpexpect/v2"

	"eventsvc/conformance/audit"
	"eventsvc/conformance/hal"
	"eventsvc/conformance/jsonvalue"
	"eventsvc/conformance/meet"
)

// Creations at the same moment (spec API-6): the user and the other user
// create events at once, each request held once its connection is ready
// until every other's is (package meet), so that they meet at the target. Each must
// make an event of its own, none lost.
//
// The scenario's recorder writes down one exchange at a time (the last
// request, then its answer), so each request sent at once goes through an
// httpexpect of its own with a recorder of its own (recorder.lane), on
// the scenario's client, whose transport and cookie jar are safe for
// concurrent use; the lanes' exchanges join the scenario's log in the
// order the requests were made, once all are answered.

// maxAtOnce bounds the creations one account sends at once.
const maxAtOnce = 10

// creation is one of the creations a scenario sent at the same moment.
type creation struct {
	who     string         // the account phrase
	body    map[string]any // what it sent
	x       *exchange      // the answer
	address string         // the event it made, once known
}

func (s *scenario) registerTogetherSteps(sc stepRegistry) {
	sc.Step(`^the user and the other user create (\d+) events each at the same moment$`, s.createAtTheSameMoment)
	sc.Step(`^each creation made an event of its own$`, s.eachMadeItsOwn)
	sc.Step(`^every event created is listed and reads back as it was created$`, s.listedAndReadBack)
}

// createAtTheSameMoment sends n creations of the user's and n of the
// other user's at once, through the "create-new-event" link each is
// offered, as the requests of a When step: the last is the answer.
func (s *scenario) createAtTheSameMoment(n int) error {
	if n < 1 || n > maxAtOnce {
		return fmt.Errorf("create 1 to %d events each at the same moment, not %d", maxAtOnce, n)
	}
	var cs []*creation
	var reqs []*httpexpect.Request
	var lanes []*recorder
	for _, who := range []string{"the user", "the other user"} {
		create, err := s.createAddress(who)
		if err != nil {
			return err
		}
		for range n {
			body, err := s.eventBody(fmt.Sprintf("created at the same moment %d", len(cs)+1))
			if err != nil {
				return err
			}
			lane := s.rec.lane()
			req, err := s.as(who, s.expect(lane).Request(http.MethodPost, "").WithURL(create).WithJSON(body).WithTransformer(closeAfter))
			if err != nil {
				return err
			}
			cs, reqs, lanes = append(cs, &creation{who: who, body: body}), append(reqs, req), append(lanes, lane)
		}
	}
	xs, err := s.atOnce(reqs, lanes)
	for i, c := range cs {
		if c.x = xs[i]; c.x != nil {
			c.x.who, c.x.kind = c.who, kindCreated
		}
	}
	if err != nil {
		return err
	}
	s.sameMoment, s.answer = cs, cs[len(cs)-1].x
	return nil
}

// atOnce sends reqs, each made on a lane of its own (recorder.lane, in
// lanes) and on a connection of its own (closeAfter), each held once its
// connection is ready until every other's is (package meet), and returns their
// exchanges in the order of reqs, which is the order their lanes join the
// scenario's log once all are answered. An exchange that failed is nil,
// its error among those joined.
func (s *scenario) atOnce(reqs []*httpexpect.Request, lanes []*recorder) ([]*exchange, error) {
	xs, errs := make([]*exchange, len(reqs)), make([]error, len(reqs))
	// Each waits for the others at most a quarter of its time (-timeout).
	meet.Send(context.Background(), len(reqs), s.target.Timeout/4, func(ctx context.Context, i int) {
		xs[i], errs[i] = s.sendVia(lanes[i], reqs[i].WithContext(ctx))
	})
	for i := range reqs {
		offset := s.rec.adopt(lanes[i])
		var xe *exchangeError
		switch {
		case xs[i] != nil:
			xs[i].at += offset
		case errors.As(errs[i], &xe):
			xe.at += offset
		}
	}
	return xs, errors.Join(errs...)
}

// closeAfter asks for a connection of its own for one of requests sent
// at once, closed after its answer: none then returns to the client's
// pool while another waits for the one it dialled, which would be left
// open and unused, and a server shutting down gracefully waits for a
// connection that never sent a byte.
func closeAfter(r *http.Request) { r.Close = true }

// eachMadeItsOwn checks that every creation sent at the same moment
// succeeded and made an event of its own: each is found at an address
// (its answer's Location or "self" link, or the "self" link of the event
// listed under the name it sent) that no other was given, with an id, when
// the answers show one, that no other was given. The creator of each then
// manages it, as far as the scenario knows.
func (s *scenario) eachMadeItsOwn() error {
	cs := s.sameMoment
	if len(cs) == 0 {
		return errors.New("no events were created at the same moment in this scenario")
	}
	for i, c := range cs {
		if c.x.status < 200 || c.x.status > 299 {
			return unmet(s.failf(c.x, "creation %d of %d sent at the same moment, by %s, failed with status %d", i+1, len(cs), c.who, c.x.status), audit.CreationsAtOnce)
		}
		if loc := c.x.header.Get("Location"); loc != "" {
			c.address = c.x.resolve(loc)
		} else if self, err := c.x.link("self"); err == nil {
			c.address = self
		}
	}
	if err := s.findUnlocated(cs); err != nil {
		return err
	}
	for i, c := range cs {
		for j, d := range cs[:i] {
			if c.address == d.address {
				return unmet(s.failf(c.x, "creations %d and %d, sent at the same moment, were both given the event at %s: two creations made one event", j+1, i+1, c.address), audit.CreationsAtOnce)
			}
			id, err1 := c.x.field("id")
			other, err2 := d.x.field("id")
			if err1 == nil && err2 == nil && jsonText(id) == jsonText(other) {
				return unmet(s.failf(c.x, "creations %d and %d, sent at the same moment, were both given the id %s: two creations made one event", j+1, i+1, jsonText(id)), audit.CreationsAtOnce)
			}
		}
		s.events.setManager(c.address, holderOf(c.who))
		s.events.made = append(s.events.made, c.address)
	}
	return nil
}

// findUnlocated finds, in the event list, the creations whose answers do
// not say where their events are, by the names they sent.
func (s *scenario) findUnlocated(cs []*creation) error {
	byName := map[string]*creation{}
	for _, c := range cs {
		if c.address == "" {
			byName[c.body["name"].(string)] = c
		}
	}
	if len(byName) == 0 {
		return nil
	}
	_, err := s.seekInList(func(p page, _ *exchange) (bool, error) {
		for i, item := range p.docs {
			name, _ := item["name"].(string)
			if c := byName[name]; c != nil && hal.Links(item)["self"] != "" {
				c.address = p.items[i]
				delete(byName, name)
			}
		}
		return len(byName) == 0, nil
	})
	if err != nil {
		return err
	}
	for _, c := range cs {
		if c.address == "" {
			return unmet(s.failf(c.x, "the event created by %s at the same moment as others is neither in the answer's Location nor its \"self\" link, nor listed under the name sent", c.who), audit.CreationsAtOnce)
		}
	}
	return nil
}

// listedAndReadBack walks the event list until it has found every event
// created at the same moment (by its address, or by the name it was
// created with when the list does not link its events: a fault of SVC-2,
// not of this check), and reads each as its creator: it is there,
// offers its creator "update-event", and every field it was created with
// that the answer shows reads back as sent (the same text, number,
// instant).
func (s *scenario) listedAndReadBack() error {
	cs := s.sameMoment
	if len(cs) == 0 || cs[0].address == "" {
		return errors.New("the events created at the same moment have not been found yet: \"each creation made an event of its own\" finds them")
	}
	unlisted := map[*creation]bool{}
	for _, c := range cs {
		unlisted[c] = true
	}
	var last *exchange
	_, err := s.seekInList(func(p page, x *exchange) (bool, error) {
		last = x
		for i, item := range p.items {
			name, _ := p.docs[i]["name"].(string)
			for c := range unlisted {
				if item == c.address || name == c.body["name"] {
					delete(unlisted, c)
				}
			}
		}
		return len(unlisted) == 0, nil
	})
	if err != nil {
		return err
	}
	for i, c := range cs {
		if unlisted[c] {
			return unmet(s.failf(last, "event %d of %d created at the same moment, at %s, is on no page of the event list", i+1, len(cs), c.address), audit.CreationsAtOnce)
		}
	}
	// Each read back as its creator, all at once: they are reads.
	reqs, lanes := make([]*httpexpect.Request, len(cs)), make([]*recorder, len(cs))
	for i, c := range cs {
		lanes[i] = s.rec.lane()
		if reqs[i], err = s.as(c.who, s.expect(lanes[i]).Request(http.MethodGet, "").WithURL(c.address).WithTransformer(closeAfter)); err != nil {
			return err
		}
	}
	ys, err := s.atOnce(reqs, lanes)
	if err != nil {
		return err
	}
	for i, c := range cs {
		if err := s.readsBackAsCreated(i, c, ys[i]); err != nil {
			return err
		}
	}
	return nil
}

// readsBackAsCreated checks y, the i-th event created at the same moment
// read as its creator.
func (s *scenario) readsBackAsCreated(i int, c *creation, y *exchange) error {
	y.who, y.kind = c.who, kindEvent
	n := len(s.sameMoment)
	switch {
	case y.status == http.StatusNotFound || y.status == http.StatusGone:
		return unmet(s.failf(y, "event %d of %d created at the same moment is not there: reading it answered %d", i+1, n, y.status), audit.CreationsAtOnce)
	case y.status != http.StatusOK:
		return s.unreadable(y, s.failf(y, "reading event %d of %d created at the same moment: status %d", i+1, n, y.status))
	}
	obj, err := y.object()
	if err != nil {
		return unmet(s.about(y, err), audit.CreationsAtOnce)
	}
	if _, ok := y.links()["update-event"]; !ok {
		s.events.body, s.events.sent = c.body, nil // the probe sends the body it was created with
		if err := s.probeManager(y); err != nil {
			return err
		}
		if found := s.takeAudit(y, audit.Offers.Rules()...); len(found) > 0 {
			return s.auditFailure(y, found[0])
		}
		return unmet(s.failf(y, "event %d of %d created at the same moment does not offer \"update-event\" to %s, who created it", i+1, n, c.who), audit.CreationsAtOnce)
	}
	for _, k := range slices.Sorted(maps.Keys(c.body)) {
		got, shown := obj[k]
		if shown && !jsonvalue.Same(c.body[k], got) {
			return unmet(s.failf(y, "%q of event %d of %d created at the same moment reads back as %s; it was created with %s", k, i+1, n, jsonvalue.Describe(got), jsonvalue.Describe(c.body[k])), audit.CreationsAtOnce)
		}
	}
	return nil
}
