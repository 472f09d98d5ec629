package steps

import (
	"net/http"
	"net/url"
	"strings"

	"eventsvc/conformance/audit"

	"github.com/gavv/httpexpect/v2"
)

// Fixed addresses. The specification names these; every other address the
// suite uses is read from links.
const (
	apiRootPath = "/api"
	docsPath    = "/docs/index.html"
	// protectedPath is a request that needs a token (spec AUTH-4: any
	// request handled by the resource server outside the public paths and
	// outside GET /api/**).
	protectedPath = "/conformance/needs-a-token"
)

// The steps that send requests to fixed addresses or follow links, on
// someone's behalf.
func (s *scenario) registerResourceSteps(sc stepRegistry) {
	sc.Step(`^`+actor+` reads the API root$`, func(who string) error { return s.sendAs(who, "GET", apiRootPath) })
	sc.Step(`^`+actor+` reads the documentation page$`, func(who string) error { return s.sendAs(who, "GET", docsPath) })
	sc.Step(`^`+actor+` sends (GET|POST|PUT|DELETE|PATCH) to "([^"]*)"$`, s.sendAs)
	sc.Step(`^`+actor+` sends a request that needs a token$`, func(who string) error { return s.sendAs(who, "GET", protectedPath) })
	sc.Step(`^`+actor+` sends a request that needs a token, with every cookie received so far$`, func(who string) error {
		return s.jar.withCookies(func() error { return s.sendAs(who, "GET", protectedPath) })
	})
	sc.Step(`^the user has sent a request that needs a token$`, s.userHasSentProtected)
	sc.Step(`^the caller follows the "([^"]*)" link$`, s.followLink)
}

// at is a request to an absolute address.
func (s *scenario) at(method, address string) *httpexpect.Request {
	return s.e.Request(method, "").WithURL(address)
}

// request is a request to a path of the target, on who's behalf; a request
// other than GET carries an empty JSON object.
func (s *scenario) request(who, method, path string) (*httpexpect.Request, error) {
	req := s.e.Request(method, path)
	if method != http.MethodGet {
		req = req.WithHeader("Content-Type", "application/json").WithText("{}")
	}
	return s.as(who, req)
}

func (s *scenario) sendAs(who, method, path string) error {
	req, err := s.request(who, method, path)
	if err != nil {
		return err
	}
	return s.when(req)
}

func (s *scenario) userHasSentProtected() error {
	req, err := s.request("the user", "GET", protectedPath)
	if err != nil {
		return err
	}
	_, err = s.send(req)
	return err
}

func (s *scenario) followLink(rel string) error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	address, err := x.link(rel)
	if err != nil && rel == "events" && x.status/100 != 2 {
		// Anyone reads the API root and finds the list there (API-1).
		return unmetOnTheWay(s.failf(x, "the API root answered %d, not the root to follow the \"events\" link from", x.status), audit.RootOffersEvents)
	}
	if err != nil {
		return s.about(x, err)
	}
	if err := s.when(s.at("GET", address)); err != nil {
		return err
	}
	// The list's links lead to pages of the list; the root's "events" to
	// its first. The caller is the same (a caller, without credentials).
	if rel == "events" || x.kind == kindList {
		s.answer.who, s.answer.kind = orAnyone(x.who), kindList
	}
	return nil
}

// orAnyone is who, or "a caller" when the step did not say.
func orAnyone(who string) string {
	if who == "" {
		return "a caller"
	}
	return who
}

// readAnonymously reads, without credentials, the address where gives
// (the list's, the event's): the address and the answer.
func (s *scenario) readAnonymously(where func() (string, error)) (string, *exchange, error) {
	address, err := where()
	if err != nil {
		return "", nil, err
	}
	x, err := s.send(s.at(http.MethodGet, address))
	return address, x, err
}

// eventsAddress reads the API root with a probe and returns the address of
// the event list from its "events" link (spec API-1), once a run (the
// target's Discovery) or else once a scenario.
func (s *scenario) eventsAddress() (string, error) {
	if s.eventsURL != "" {
		return s.eventsURL, nil
	}
	if a, ok := s.target.Discovery.Lookup(s.base, "events"); ok {
		s.eventsURL = a
		return a, nil
	}
	root, err := s.send(s.e.GET(apiRootPath))
	if err != nil {
		return "", err
	}
	if root.status != http.StatusOK {
		// Anyone reads the API root and finds the list there (API-1).
		return "", unmetOnTheWay(s.failf(root, "the API root answered %d", root.status), audit.RootOffersEvents)
	}
	address, err := root.link("events")
	if err != nil {
		return "", unmetOnTheWay(s.about(root, err), audit.RootOffersEvents)
	}
	s.eventsURL = address
	s.target.Discovery.Learn(s.base, "events", address)
	return address, nil
}

// absolute reports whether href is an absolute address with a host.
func absolute(href string) bool {
	u, err := url.Parse(href)
	return err == nil && u.IsAbs() && u.Host != ""
}

func splitList(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// withQuery adds a query to an address.
func withQuery(address, query string) string {
	if query == "" {
		return address
	}
	if strings.Contains(address, "?") {
		return address + "&" + query
	}
	return address + "?" + query
}
