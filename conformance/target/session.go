package target

import (
	"fmt"

	"eventsvc/conformance/audit"
	"eventsvc/conformance/contract"
	"eventsvc/conformance/deadlink"
	"eventsvc/conformance/origin"
	"eventsvc/internal/redact"
)

// Session is what a run holds for its target, apart from what a user set:
// the services built once for the run by Open, here alone, which every
// runner of the run shares (the preflight, the scenarios, the
// exploration after them).
type Session struct {
	// Origins is told of every request of the run to another origin than
	// the target's, which went without credentials.
	Origins *origin.Log
	// Watch is the run's watch on the target's answers (429s, outages),
	// which Transport carries every request through.
	Watch *Watch
	// Redactor masks what the run shows: the credentials, and every
	// token the run was issued, whichever runner learnt it.
	Redactor *redact.Redactor
	// DeadLinks keeps the links of the target that lead outside BaseURL
	// to nothing of the API (the watch of the run's answers tells it): a
	// step that failed on one is not checked, with that reason, rather
	// than failed (DeadLinkOf). Nil in-process, where every scenario has
	// a server of its own.
	DeadLinks *deadlink.Log
	// Audit checks every exchange of every runner against every rule
	// that governs it, whatever the runner is about.
	Audit *audit.Audit
	// Discovery shares among the scenarios of a run what they read from
	// the API root.
	Discovery *Discovery
	// Pool, against a deployment, shares the accounts' access tokens
	// among the scenarios of a run. Nil in-process, where every scenario
	// has a server of its own.
	Pool *Pool
}

// Sharing is how the runner that opens a target shares its session.
type Sharing struct {
	// ReadOnly says the run must create and change nothing
	// (Target.ReadOnly).
	ReadOnly bool
	// Workers is how many links the audit follows at once.
	Workers int
	// Ref takes the target for the reference server
	// (audit.Options.Ref).
	Ref bool
}

// Open returns t ready for a run: read-only as s says, with the API's
// OpenAPI document as its Contract unless it has one, and its Session,
// built here once: the dead links of its base URL, the watch on its
// answers, which its Transport then carries every request through, the
// log of the other origins its requests went to, the redactor of its
// credentials, the audit (its links followed on connections of their
// own, through the watch) and what the scenarios share. Open is the one
// constructor of a session: the runner of the scenarios opens its
// target, and gives it open to the exploration after them; an
// exploration alone opens its own. A target already open is returned as
// it is. The caller closes the audit.
func Open(t Target, s Sharing) (Target, error) {
	if t.Opened() {
		return t, nil
	}
	if t.Contract == nil {
		c, err := contract.Default()
		if err != nil {
			return t, fmt.Errorf("the OpenAPI document: %w", err)
		}
		t.Contract = c
	}
	t.ReadOnly = t.ReadOnly || s.ReadOnly
	network := t.Transport
	dead := deadlink.NewLog(t.BaseURL)
	watch := &Watch{DeadLinks: dead}
	t.Transport = watch.Transport(network)
	t.Session = Session{Origins: &origin.Log{}, Watch: watch, Redactor: redact.New(t.Credentials.Secrets()...), DeadLinks: dead, Discovery: &Discovery{}}
	if t.Remote() { // a deployment's tokens are shared; in-process, every scenario has a server of its own
		t.Pool = &Pool{}
	}
	t.Audit = t.NewAudit(watch.Transport(OwnConnections(network)), t.Redactor, s.Ref, s.Workers)
	return t, nil
}

// Opened reports whether t holds its session (Open built it).
func (t Target) Opened() bool { return t.Watch != nil }
