package steps

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/cucumber/godog"
	messages "github.com/cucumber/messages/go/v21"
	"github.com/gavv/httpexpect/v2"

	"eventsvc/conformance/audit"
	"eventsvc/conformance/deadlink"
	"eventsvc/conformance/origin"
	"eventsvc/conformance/repro"
	"eventsvc/conformance/target"
	"eventsvc/features"
	"eventsvc/internal/redact"
)

// scenario is the state of one running scenario. The scenario initializer
// makes a new one for every scenario, so scenarios share nothing.
//
// Every step returns its failure as an error; a failure about an exchange
// carries that exchange's masked transcript (scenario.failf).
type scenario struct {
	name, place string   // the scenario's, for its reproduction
	rules       []string // the rules it checks, by its tags
	target      target.Target
	creds       target.Credentials
	redactor    *redact.Redactor
	rec         *recorder
	scope       *audit.Scope // the run's audit of the scenario; nil without one
	// runLogins is true while the scenario's server holds the run's
	// client and accounts alone (audit Scope.Move).
	runLogins bool
	client    *http.Client
	jar       *cookies
	// guard sends credentials to the origin of base only: the client's
	// transport, under whatever a step wraps it in.
	guard *origin.Guard

	base     string             // the address requests go to
	e        *httpexpect.Expect // requests; paths are under base
	instance target.Instance    // the in-process server, when the target has a Launcher

	answer *exchange // the answer of the last When step

	clientAuth clientAuth        // how token requests authenticate the client
	asked      tokenAsk          // the last token request of a When step
	ownTokens  bool              // the scenario shares no token with others (Pool)
	tokens     tokens            // the tokens the scenario holds
	spellings  map[string]string // schemes as the scenario writes them (spelling)

	events events // the events the scenario created or sent
	// sameMoment are the creations the scenario sent at the same moment
	// (together.go).
	sameMoment []*creation
	// eventsURL is the address of the event list, read from the API
	// root once (eventsAddress).
	eventsURL string

	pages []page // the pages of a walk through the event list
	// walk is the registry's judgment of that walk (audit.Scope.Walked).
	walk struct {
		found  []*audit.Finding
		judged []string
	}
	// listStart is where a walk through the event list starts: "" for
	// the address of the API root's "events" link, or the first page
	// with a page size the scenario chose (listFillsLastPage).
	listStart string

	config   target.ServerConfig // the in-process server's configuration, as the steps build it
	startErr error               // the in-process server's refusal to start
	started  bool

	// began is when the scenario began, and advanced how far it moved
	// the target's clock since (now).
	began    time.Time
	advanced time.Duration

	// turns is the run's turn of the kinds of near-miss its wrong logins
	// send (wrong.go), and nearMisses those the scenario sent.
	turns      *wrongTurns
	nearMisses []repro.Var
}

// Initializer returns the scenario initializer for a run against target.
func Initializer(target target.Target) func(*godog.ScenarioContext) {
	compiled := &expressions{}
	turns := &wrongTurns{}
	return func(ctx *godog.ScenarioContext) {
		s := &scenario{target: target, creds: target.Credentials, turns: turns}
		sc := stepRegistry{ctx, compiled, s}
		sc.Before(func(ctx context.Context, p *godog.Scenario) (context.Context, error) {
			s.ownTokens = watchesCookies(p)
			s.name, s.place = p.Name, p.Uri
			s.rules = scenarioRules(p)
			return ctx, s.start()
		})
		sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
			if s.scope != nil && s.instance != nil {
				s.scope.Release() // the audit follows links to the server about to stop
			}
			return ctx, s.stop()
		})
		sc.StepContext().Before(func(ctx context.Context, st *godog.Step) (context.Context, error) {
			if s.scope != nil {
				s.scope.At(st.Text, 0)
			}
			return ctx, nil
		})
		s.registerTokenSteps(sc)
		s.registerAnswerSteps(sc)
		s.registerCachingSteps(sc)
		s.registerLinkSteps(sc)
		s.registerValidationSteps(sc)
		s.registerResourceSteps(sc)
		s.registerCreateSteps(sc)
		s.registerEventSteps(sc)
		s.registerSpellingSteps(sc)
		s.registerPlaceSteps(sc)
		s.registerTogetherSteps(sc)
		s.registerPagingSteps(sc)
		s.registerListSteps(sc)
		s.registerWalkSteps(sc)
		s.registerPageSizeSteps(sc)
		s.registerOfferSteps(sc)
		s.registerFollowSteps(sc)
		s.registerConfigSteps(sc)
		s.registerClockSteps(sc)
		s.registerControl(sc)
		s.registerCuts(sc) // before the hooks that look at a step's failure
		s.registerDeadLinks(sc)
		s.registerContract(sc)
		s.registerReproduction(sc)
	}
}

// scenarioRules are the ids of the rules p's tags name.
func scenarioRules(p *godog.Scenario) []string {
	var tags features.Tags
	for _, t := range p.Tags {
		tags = append(tags, t.Name)
	}
	return tags.Rules()
}

// watchesCookies reports whether a step of the scenario looks at the
// cookies answers set ("no answer in this scenario set a cookie", "with
// every cookie received so far"): the scenario then holds tokens of its
// own (Pool), since the cookies their token responses set are its to see.
// A step that puts a token in a cookie takes the pool's, with the names of
// the cookies set where it was taken.
func watchesCookies(p *godog.Scenario) bool {
	return slices.ContainsFunc(p.Steps, func(st *messages.PickleStep) bool { return cookiesSet.MatchString(st.Text) })
}

// cookiesSet finds a step about the cookies answers set.
var cookiesSet = regexp.MustCompile(`(?i)\bset a cookie\b|\bcookies? received\b`)

// start prepares a fresh scenario: its own cookie jar, its own redactor, and
// in-process, its own reference server with the run's credentials.
func (s *scenario) start() error {
	s.redactor = redact.New(s.creds.Secrets()...)
	base := s.target.Transport
	if s.target.Audit != nil {
		base = s.target.Audit.Transport(base) // the audit knows of the writes under way
	}
	s.guard = &origin.Guard{Base: base, Log: s.target.Origins}
	if s.target.Audit != nil {
		// godog names a scenario run by its file:line by that place.
		file, _, _ := strings.Cut(s.place, ":")
		s.scope = s.target.Audit.Scope(s.target.BaseURL, audit.Place{Name: s.name, File: file})
	}
	s.rec = &recorder{redactor: s.redactor, guard: s.guard, scope: s.scope, now: s.clock().Now}
	jar, err := cookiejar.New(nil)
	if err != nil {
		return fmt.Errorf("cookie jar: %w", err)
	}
	s.jar = &cookies{jar: jar}
	guarded := s.target
	guarded.Transport = s.guard
	s.client = guarded.Client() // every answer bounded (Target.MaxAnswer, Timeout)
	s.client.Jar = s.jar
	s.clientAuth = clientAuth{id: s.creds.ClientID, secret: s.creds.ClientSecret}
	s.began, s.advanced = time.Now(), 0
	if s.target.Remote() {
		s.use(s.target.BaseURL)
		return nil
	}
	return s.launch(target.ServerConfig{})
}

func (s *scenario) stop() error {
	if s.instance == nil {
		return nil
	}
	s.client.CloseIdleConnections()
	err := s.instance.Close()
	s.instance = nil
	return err
}

// launch replaces the scenario's in-process server by one with cfg.
func (s *scenario) launch(cfg target.ServerConfig) error {
	if s.target.Remote() {
		return errors.New("this scenario needs the in-process reference server (tag @local); it cannot run against " + s.target.BaseURL)
	}
	if err := s.stop(); err != nil {
		return err
	}
	inst, err := s.target.Launcher.Launch(cfg)
	if err != nil {
		return err
	}
	s.instance = inst
	// A server of the run's client and accounts alone has its token
	// issuance judged by the run's credentials.
	s.runLogins = cfg.Clients == nil && cfg.Accounts == nil
	s.use(inst.BaseURL())
	return nil
}

// use points the scenario's requests at base, the only origin its
// credentials go to.
func (s *scenario) use(base string) {
	if s.scope != nil && s.instance != nil {
		s.scope.Move(base, s.runLogins) // a server of the scenario's own
	}
	s.base, s.eventsURL = base, ""
	s.guard.Target = base
	s.e = s.expect(s.rec)
}

// expect makes the requests of the scenario written down by rec: its
// client, its base, paths under it.
func (s *scenario) expect(rec *recorder) *httpexpect.Expect {
	return httpexpect.WithConfig(httpexpect.Config{
		BaseURL:  s.base,
		Client:   s.client,
		Reporter: rec,
		Printers: []httpexpect.Printer{rec},
		Formatter: &httpexpect.DefaultFormatter{
			DisableNames:     true,
			DisableRequests:  true, // the recorder writes them down, masked
			DisableResponses: true,
			ColorMode:        httpexpect.ColorModeNever,
			LineWidth:        -1,
		},
	})
}

// learn teaches the redactor a secret the scenario came to know.
func (s *scenario) learn(secret string) { s.redactor.Add(secret) }

// failf is the failure of a step about x: the message, then x's request
// and answer, all masked. It says which exchange of the scenario it is
// about (exchangeError), for its reproduction.
func (s *scenario) failf(x *exchange, format string, args ...any) error {
	msg := s.redactor.String(fmt.Sprintf(format, args...))
	if x == nil {
		return errors.New(msg)
	}
	if page := deadlink.ProxyPage(x.status, x.header); page != "" {
		msg += " (" + page + ")"
	}
	if x.transcript == "" {
		return &exchangeError{at: x.at, err: errors.New(msg)}
	}
	return &exchangeError{at: x.at, err: fmt.Errorf("%s\n\n%s", msg, x.transcript)}
}

// exchangeError is a step's failure about one exchange of the scenario:
// the one at index at of the recorder's log. It survives the wrapping of
// breaks and requires (errors.As).
type exchangeError struct {
	at  int
	err error
}

func (e *exchangeError) Error() string { return e.err.Error() }
func (e *exchangeError) Unwrap() error { return e.err }

// failingExchange returns the index in the scenario's log of the exchange
// err is about, if it is about one.
func failingExchange(err error) (int, bool) {
	var xe *exchangeError
	if errors.As(err, &xe) {
		return xe.at, true
	}
	return 0, false
}

// about is failf for an error met while reading x; nil stays nil.
func (s *scenario) about(x *exchange, err error) error {
	if err == nil {
		return nil
	}
	return s.failf(x, "%v", err)
}
