package explore

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"eventsvc/conformance/deadlink"
	"eventsvc/conformance/hal"
	"eventsvc/conformance/origin"
	"eventsvc/conformance/target"
)

// maxSetupEvents bounds the events the setup creates so that the list has
// a second page, from which the run learns how to ask for a page size: at
// most a quarter of the run's.
const maxSetupEvents = 25

// start readies a run of o against its target, which explore opened:
// the target (an in-process server, or a deployment that passes the
// preflight, unless a run of the scenarios checked it), the run's shared
// tokens, the list's address and how to page it. own says the target's
// audit is the exploration's, which it reports. stop ends what it
// started.
func start(ctx context.Context, o Options, own bool) (r *runner, stop func(), err error) {
	t, stop, preflightCreated, err := reach(o)
	if err != nil {
		return nil, stop, err
	}
	defer func() {
		if err != nil {
			stop()
		}
	}()
	r = newRunner(o, t)
	if preflightCreated {
		r.created.Store(1) // the preflight's event is one of MaxEvents
	}
	r.ref = o.Ref
	r.ownAudit = own
	// The audit knows of the writes under way (audit.Transport).
	r.guard = &origin.Guard{Target: t.BaseURL, Base: t.Audit.Transport(t.Transport), Log: t.Origins}
	guarded := t
	guarded.Transport = r.guard
	r.client = guarded.Client() // every answer bounded (Target.MaxAnswer, Timeout)
	r.auditScopes(t.Audit, !t.Remote())
	if r.ref {
		r.scope.CheckContract() // every sequence's exchanges too, forked from it (API-11)
	}
	s := r.newSequence(ctx, 0, nil)
	s.scope = r.scope
	for _, step := range []func(*sequence) error{r.findList, r.logIn, r.learnList} {
		if err := step(s); err != nil {
			return nil, stop, err
		}
	}
	return r, stop, nil
}

// reach readies the target o explores: one in-process reference server
// for the whole exploration (ServerConfig), or a deployment that passes
// the preflight, unless a run of the scenarios checked it
// (preflightCreated: the preflight created an event). stop ends what it
// started.
func reach(o Options) (t target.Target, stop func(), preflightCreated bool, err error) {
	t, stop = o.Target, func() {}
	switch {
	case !t.Remote():
		inst, err := t.Launcher.Launch(ServerConfig())
		if err != nil {
			return t, stop, false, fmt.Errorf("start the reference server: %w", err)
		}
		t.BaseURL = inst.BaseURL()
		return t, func() { inst.Close() }, false, nil
	case !o.checked:
		// The preflight of an exploration alone notes no dead link:
		// no runner of it tells one (API-10), and its sequences find the
		// list themselves.
		alone := t
		alone.DeadLinks = nil
		checked, err := target.Preflight(alone, !o.ReadOnly)
		checked.DeadLinks = t.DeadLinks
		return checked, stop, err == nil && !o.ReadOnly, err
	}
	return t, stop, false, nil
}

// ServerConfig is the configuration of the one in-process reference
// server an exploration explores: the run's credentials, and a clock
// that follows the machine's, as a deployment's does, so that its
// budget of token requests, spent, refills as time passes.
func ServerConfig() target.ServerConfig { return target.ServerConfig{RealTime: true} }

// newRunner is the exploration of o against t, before its setup.
func newRunner(o Options, t target.Target) *runner {
	return &runner{
		o: o, target: t, watch: t.Watch, readOnly: o.ReadOnly,
		redactor:  t.Redactor,
		base:      strings.TrimRight(t.BaseURL, "/"),
		madeUp:    "made-up-" + t.RunID,
		mark:      " [conformance " + t.RunID + " explore]",
		pool:      map[string]tokens{},
		checks:    map[string]int{},
		replays:   map[int][]Action{},
		shrunk:    map[string]int{},
		drawnIn:   map[string]int{},
		sent:      map[string]int{},
		kindsSent: map[string]bool{}, kindsBuilt: map[string]bool{}, headTried: map[int]bool{},
	}
}

// findList reads the API root for the list's address (spec API-1).
func (r *runner) findList(s *sequence) error {
	r.root = r.base + "/api"
	root, err := s.send(request{method: http.MethodGet, address: r.root})
	if err != nil {
		return err
	}
	if th := r.watch.Throttled(); th != nil {
		return th
	}
	events, ok := root.links()["events"]
	if root.status != http.StatusOK || !ok {
		return fmt.Errorf("GET %s answered %d without an \"events\" link: the list cannot be found (spec API-1)", r.root, root.status)
	}
	r.events, r.create = root.resolve(events), root.resolve(events)
	if u, err := url.Parse(r.events); err == nil {
		r.target.DeadLinks.Offered(u, "events", "GET "+root.url.EscapedPath())
	}
	return nil
}

// logIn asks for the tokens both accounts share over the run, and masks
// them.
func (r *runner) logIn(s *sequence) error {
	c := r.target.Credentials
	for _, acct := range []struct{ who, user, pass string }{{AsUser, c.Username, c.Password}, {AsOther, c.OtherUsername, c.OtherPass}} {
		x, err := s.tokenRequest("", "grant_type", "password", "username", acct.user, "password", acct.pass)
		if err != nil {
			return err
		}
		if th := r.watch.Throttled(); th != nil {
			return th
		}
		access, _ := x.text("access_token")
		refresh, _ := x.text("refresh_token")
		if x.status != http.StatusOK || access == "" {
			return fmt.Errorf("the token endpoint gave %q no token (status %d): check the CONFORMANCE_* credentials", acct.user, x.status)
		}
		r.redactor.Add(access)
		r.redactor.Add(refresh)
		r.pool[acct.who] = tokens{access: access, refresh: refresh}
	}
	return nil
}

// learnList reads the run's event body, where the list takes new
// events, and how to ask it for a page size. A list that leads nowhere
// is a *deadlink.Error: every sequence would need it, and none runs.
func (r *runner) learnList(s *sequence) error {
	raw := r.target.EventBody
	if len(raw) == 0 {
		raw = []byte(target.DefaultEventBody)
	}
	var err error
	if r.body, err = jsonObject(raw); err != nil {
		return err
	}
	r.body["name"] = "Exploration event" + r.mark
	list, err := s.send(request{method: http.MethodGet, address: r.events, auth: bearer("", r.pool[AsUser].access)})
	if err != nil {
		return err
	}
	if href, ok := list.links()["create-new-event"]; ok {
		r.create = list.resolve(href)
	}
	err = r.learnPaging(s)
	if link := r.target.DeadLinks.DeadAt(r.events); link != nil {
		return &deadlink.Error{Link: link, Err: err}
	}
	if err != nil {
		return err
	}
	if th := r.watch.Throttled(); th != nil {
		return th
	}
	return nil
}

// sizeNames are the names lists commonly take a page size by, which the
// run tries when the list's own links do not tell it.
var sizeNames = []string{"size", "per_page", "limit", "pageSize", "page_size", "perPage", "count"}

// probePaging finds the query parameter that sets the page size among
// sizeNames, for a list whose first page holds n events and whose links
// do not tell it: the first name for which the list answers a page of
// one event fewer. "" when none does.
func (r *runner) probePaging(s *sequence, n int) (string, error) {
	if n < 2 {
		return "", nil
	}
	for _, name := range sizeNames {
		u, err := url.Parse(r.events)
		if err != nil {
			return "", nil
		}
		q := u.Query()
		q.Set(name, strconv.Itoa(n-1))
		u.RawQuery = q.Encode()
		x, err := s.send(request{method: http.MethodGet, address: u.String()})
		if err != nil {
			return "", err
		}
		if x.status == http.StatusOK && len(hal.Items(x.doc)) == n-1 {
			return name, nil
		}
	}
	return "", nil
}

// learnPaging reads the first two pages of the list to learn how to ask
// for a page size; a list of one page first gets events of the run's,
// unless the run is read-only.
func (r *runner) learnPaging(s *sequence) error {
	made := 0
	for batch := 1; ; batch *= 2 {
		first, err := s.send(request{method: http.MethodGet, address: r.events})
		if err != nil {
			return err
		}
		if next, ok := first.links()["next"]; ok {
			second, err := s.send(request{method: http.MethodGet, address: first.resolve(next)})
			if err != nil {
				return err
			}
			r.sizeParam = learnPaging(first, second)
			if r.sizeParam == "" {
				r.sizeParam, err = r.probePaging(s, len(hal.Items(first.doc)))
			}
			return err
		}
		most := min(maxSetupEvents, r.o.MaxEvents/4)
		if r.readOnly || made >= most {
			return nil
		}
		for i := 0; i < batch && made < most; i++ {
			if !r.reserveEvent() {
				return nil
			}
			body, _ := json.Marshal(r.body)
			x, err := s.send(request{method: http.MethodPost, address: r.create, auth: bearer("", r.pool[AsUser].access), contentType: "application/json", body: body})
			if err != nil {
				return err
			}
			if x.status < 200 || x.status > 299 {
				return fmt.Errorf("the target refused the run's event body: POST %s answered %d", r.redactor.String(r.create), x.status)
			}
			made++
		}
	}
}
