package target

import (
	"net/http"
	"sync"
	"time"

	"eventsvc/conformance/cutoff"
	"eventsvc/conformance/repro"
)

// Target is the deployment a run checks: what a user set (the address,
// the credentials, the bounds of an answer, the network), and, once Open
// built it, the run's Session, which every runner of it shares (the
// watch on the transport, the audit every exchange passes through, the
// dead links, the shared addresses and tokens).
type Target struct {
	// BaseURL is the address of a deployed service, for example
	// "https://staging.example". Empty when Launcher starts the server.
	BaseURL string
	// Credentials are the client and accounts the scenarios use.
	Credentials Credentials
	// Launcher starts an in-process reference server for each scenario. It
	// is nil for a remote target, where @local scenarios cannot run.
	Launcher Launcher
	// EventBody is a JSON object the target's POST /api/events accepts.
	// Empty: DefaultEventBody.
	EventBody []byte
	// RunID marks the names of the events a run creates.
	RunID string
	// ReadOnly says the run must create and change nothing on the target.
	// The steps that would create what a scenario needs then look for it
	// among what the target holds, and skip the scenario, with the reason,
	// when they find nothing.
	ReadOnly bool
	// ControlURL is the address of the control API of a reference server
	// run out of process (`eventsvc serve -control`, docs/control-api.md).
	// With it, the steps that let time pass move that server's clock, so
	// that the @local scenarios of token validity run against it.
	ControlURL string
	// ControlToken is the control API's bearer token, if it needs one. It
	// is masked like the credentials.
	ControlToken string
	// Contract, when set, checks every answer of the @ref scenarios
	// against the API's OpenAPI document.
	Contract Contract
	// Transport, when set, carries every request of the run: the TLS
	// settings and proxy a user set (Network), and once Open built the
	// session, the run's Watch for 429 answers and outages. Nil:
	// http.DefaultTransport. Each runner sends it credentials for the
	// target's origin only (origin.Guard).
	Transport http.RoundTripper
	// Timeout bounds every request, from its start to the end of its
	// answer's body. Zero: cutoff.DefaultTimeout, 30 seconds.
	Timeout time.Duration
	// MaxAnswer bounds the body of every answer, in bytes, counted after
	// the transport decompressed it. Zero: cutoff.DefaultMaxAnswer, 4 MiB.
	MaxAnswer int64
	// Clock is the time the @slow scenarios wait on against a
	// deployment, for tokens to age. Nil: the machine's (SystemClock).
	Clock Clock
	// Lifetimes are the token lifetimes the @slow scenarios check. Zero:
	// the specification's (SpecLifetimes); the suite's own tests shorten
	// them, against a server whose tokens live as long.
	Lifetimes Lifetimes

	// Session is what a run holds for the target, built once by Open
	// and shared by every runner of the run; the zero Session until then.
	Session
}

// Remote reports whether the target is a deployment: no Launcher starts
// it in the run's process, and a run reaches it at BaseURL.
func (t Target) Remote() bool { return t.Launcher == nil }

// Client returns a client for the target: its Transport, with every
// answer bounded by MaxAnswer and Timeout (an answer past them is cut:
// its body ends with a *cutoff.CutError), and redirects not followed, for
// the suite looks at them.
func (t Target) Client() *http.Client {
	return &http.Client{
		Transport:     cutoff.Limits{MaxAnswer: t.MaxAnswer, Timeout: t.Timeout}.Transport(t.Transport),
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// Discovery keeps the addresses the scenarios of one run read from the
// target's links and need again, by the target's base address, so that
// they read them once between them rather than once each: the address of
// the event list that the API root's "events" link gives (spec API-1),
// and the "create-new-event" address the list offers each account (spec
// API-4). The scenarios that check those links read them themselves. It is
// safe for concurrent use.
type Discovery struct {
	mu    sync.Mutex
	known map[string]string
}

// Lookup returns what is known of key at base.
func (d *Discovery) Lookup(base, key string) (string, bool) {
	if d == nil {
		return "", false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	a, ok := d.known[base+" "+key]
	return a, ok
}

// Learn keeps value for key at base.
func (d *Discovery) Learn(base, key, value string) {
	if d == nil {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.known == nil {
		d.known = map[string]string{}
	}
	d.known[base+" "+key] = value
}

// Credentials are the secrets a run uses. They are masked in every message
// and report.
type Credentials struct {
	ClientID, ClientSecret   string
	Username, Password       string // the manager in write scenarios
	OtherUsername, OtherPass string // a second account, not the manager
	// BasicAsIs sends the client id and secret in the Basic header as
	// they are, for a target that does not form-decode them (RFC 6749
	// §2.3.1 says it should). It only matters when encoding changes them.
	BasicAsIs bool
}

// DemoCredentials are the reference server's demo credentials, the default
// of every CONFORMANCE_* credential variable.
var DemoCredentials = Credentials{
	ClientID: "myApp", ClientSecret: "pass",
	Username: "user@email.com", Password: "user",
	OtherUsername: "admin@email.com", OtherPass: "admin",
}

// Secrets returns the values to mask.
func (c Credentials) Secrets() []string {
	return []string{c.ClientSecret, c.Password, c.OtherPass}
}

// Launcher starts reference servers in the test process.
type Launcher interface {
	// Launch starts a reference server on a loopback port with the given
	// configuration. An error is the server's refusal to start, as a user
	// of `eventsvc serve -config` would see it.
	Launch(cfg ServerConfig) (Instance, error)
}

// Instance is one running in-process reference server.
type Instance interface {
	// BaseURL is the server's address, such as "http://127.0.0.1:40123".
	BaseURL() string
	// Advance moves the server's clock forward.
	Advance(d time.Duration)
	// Close stops the server.
	Close() error
}

// ServerConfig is the configuration of an in-process reference server. A
// nil list takes the run's own client and accounts.
type ServerConfig struct {
	Clients  []ClientConfig
	Accounts []AccountConfig
	// MaxEventsPerUser is how many events one account may manage. Zero:
	// the server's default.
	MaxEventsPerUser int
	// RealTime makes the server's clock follow the machine's, as a
	// deployed server's does, for the server an exploration explores
	// from start to end: its budget of token requests refills and its
	// tokens age as time passes.
	RealTime bool
}

// ClientConfig is one client registration.
type ClientConfig struct {
	ID string
	// Secret is the plain secret; the launcher stores it the way
	// `eventsvc hash-password` prints it.
	Secret string
	// Stored, when not empty, is written to the configuration as the
	// stored secret instead, exactly as it is.
	Stored      string
	GrantTypes  []string
	Scopes      []string
	ResourceIDs []string
}

// AccountConfig is one account.
type AccountConfig struct {
	Email string
	// Password is the plain password; the launcher stores it the way
	// `eventsvc hash-password` prints it.
	Password string
	// Stored, when not empty, is written to the configuration as the
	// stored password instead, exactly as it is.
	Stored string
	Roles  []string
}

// Vars are the run's credentials as a reproduction script reads them:
// from the CONFORMANCE_* variables the run reads them from.
func (c Credentials) Vars() []repro.Var {
	return []repro.Var{
		{Value: c.ClientSecret, Name: "${CONFORMANCE_CLIENT_SECRET}"}, {Value: c.ClientID, Name: "${CONFORMANCE_CLIENT_ID}"},
		{Value: c.Password, Name: "${CONFORMANCE_PASSWORD}"}, {Value: c.Username, Name: "${CONFORMANCE_USERNAME}"},
		{Value: c.OtherPass, Name: "${CONFORMANCE_OTHER_PASSWORD}"}, {Value: c.OtherUsername, Name: "${CONFORMANCE_OTHER_USERNAME}"},
	}
}

// Contract checks an answer against the API's OpenAPI document
// (/docs/openapi.json). Package contract has one.
type Contract interface {
	// CheckAnswer returns an error saying how the answer to req differs
	// from what the document says, or nil.
	CheckAnswer(req *http.Request, status int, header http.Header, body []byte) error
}

// DefaultEventBody is a body the reference server's POST /api/events
// accepts. Its "name" is replaced by a name that carries the run id.
const DefaultEventBody = `{
  "name": "Conformance event",
  "description": "Created by the Event Service conformance suite",
  "beginEnrollmentDateTime": "2026-11-23T10:00:00",
  "closeEnrollmentDateTime": "2026-11-24T10:00:00",
  "beginEventDateTime": "2026-11-25T10:00:00",
  "endEventDateTime": "2026-11-25T18:00:00",
  "location": "Main hall",
  "basePrice": 100,
  "maxPrice": 200,
  "limitOfEnrollment": 100
}`
