package steps

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/http/cookiejar"
	"strings"
	"time"

	"github.com/cucumber/godog"
	"github.com/gavv/httpexpect/v2"

	"eventsvc/redact"
)

// requestTimeout bounds every request of the suite.
const requestTimeout = 30 * time.Second

// scenario is the state of one running scenario. The scenario initializer
// makes a new one for every scenario, so scenarios share nothing.
type scenario struct {
	target   Target
	creds    Credentials
	redactor *redact.Redactor
	rec      *recorder
	jar      http.CookieJar
	client   *http.Client

	base     string             // the address requests go to
	e        *httpexpect.Expect // requests; paths are under base
	instance Instance           // the in-process server, when the target has a Launcher

	clientAuth clientAuth // how token requests authenticate the client

	accessToken, refreshToken string
	previousAccessToken       string
	otherToken                string    // the other user's access token
	expiresIn                 int64     // expires_in of the last token issued
	issuedAt                  time.Time // when it was issued
	badToken                  string    // a made-up token

	eventURL      string         // the address of the event the scenario created
	eventName     string         // its name when created
	eventBodySent map[string]any // the body it was created with
	created       int            // events created by this scenario
	sentName      string         // the name in the last new-event body sent
	nonce         string         // marks the names of this scenario's events
	eventCount    int            // the number of events counted earlier
	pages         []page         // the pages of a walk through the event list

	last     *httpexpect.Response // the last answer
	lastBody string

	config   ServerConfig
	secrets  map[string]string // plain secrets of configured clients, by id
	startErr error
	started  bool
}

// clientAuth is the HTTP Basic credential of token requests.
type clientAuth struct {
	none       bool
	id, secret string
}

// Initializer returns the scenario initializer for a run against target.
func Initializer(target Target) func(*godog.ScenarioContext) {
	return func(sc *godog.ScenarioContext) {
		s := &scenario{target: target, creds: target.Credentials}
		sc.Before(func(ctx context.Context, _ *godog.Scenario) (context.Context, error) {
			return ctx, s.start()
		})
		sc.After(func(ctx context.Context, _ *godog.Scenario, err error) (context.Context, error) {
			return ctx, s.stop()
		})
		s.registerTokenSteps(sc)
		s.registerServiceSteps(sc)
		s.registerConfigSteps(sc)
		s.registerLinkSteps(sc)
		s.registerEventSteps(sc)
	}
}

// start prepares a fresh scenario: its own cookie jar, its own redactor, and
// in-process, its own reference server on the demo configuration.
func (s *scenario) start() error {
	s.redactor = redact.New(s.creds.Secrets()...)
	s.rec = &recorder{redactor: s.redactor}
	jar, err := cookiejar.New(nil)
	if err != nil {
		return fmt.Errorf("cookie jar: %w", err)
	}
	s.jar = jar
	s.client = &http.Client{
		Jar:     jar,
		Timeout: requestTimeout,
		// The suite looks at redirects instead of following them.
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	s.clientAuth = clientAuth{id: s.creds.ClientID, secret: s.creds.ClientSecret}
	s.secrets = map[string]string{}
	if s.target.Launcher == nil {
		s.use(s.target.BaseURL)
		return nil
	}
	return s.launch(ServerConfig{})
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
func (s *scenario) launch(cfg ServerConfig) error {
	if s.target.Launcher == nil {
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
	s.use(inst.BaseURL())
	return nil
}

// use points the scenario's requests at base.
func (s *scenario) use(base string) {
	s.base = base
	s.e = httpexpect.WithConfig(httpexpect.Config{
		BaseURL:  base,
		Client:   s.client,
		Reporter: s.rec,
		Printers: []httpexpect.Printer{s.rec},
		Formatter: &httpexpect.DefaultFormatter{
			DisableNames:     true,
			DisableRequests:  true, // the recorder attaches them, masked
			DisableResponses: true,
			ColorMode:        httpexpect.ColorModeNever,
			LineWidth:        -1,
		},
	})
}

// learn teaches the redactor a secret the scenario came to know.
func (s *scenario) learn(secret string) { s.redactor.Add(secret) }

// done ends a step: the first failure it recorded, or nil.
func (s *scenario) done() error { return s.rec.take() }

// expect remembers an answer as "the answer" of later steps.
func (s *scenario) expect(req *httpexpect.Request) *httpexpect.Response {
	s.last = req.Expect()
	s.lastBody = s.last.Body().Raw()
	return s.last
}

// requireLast fails the step when no request was sent yet.
func (s *scenario) requireLast() bool {
	if s.last == nil {
		s.rec.fail("no request has been sent yet in this scenario")
		return false
	}
	return true
}

// object reads the last answer's body as a JSON object. Any JSON media type
// will do: application/json, application/hal+json, application/problem+json.
func (s *scenario) object() *httpexpect.Object {
	mt, _, _ := mime.ParseMediaType(s.last.Raw().Header.Get("Content-Type"))
	if mt != "application/json" && !strings.HasSuffix(mt, "+json") {
		s.rec.fail("the answer is not JSON: Content-Type %q", s.last.Raw().Header.Get("Content-Type"))
		mt = "application/json"
	}
	return s.last.JSON(httpexpect.ContentOpts{MediaType: mt}).Object()
}
