package control

import (
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/gofiber/fiber/v2"

	"eventsvc/server/event"
	"eventsvc/server/oauth"
)

// State is what GET / answers: how the server stands.
type State struct {
	// Conforms is false when the server no longer behaves as the
	// specification says (other token lifetimes); NonConformance says why.
	Conforms       bool     `json:"conforms"`
	NonConformance []string `json:"nonConformance,omitempty"`
	Lifetimes      struct {
		AccessSeconds  int64 `json:"accessSeconds"`
		RefreshSeconds int64 `json:"refreshSeconds"`
	} `json:"lifetimes"`
	Clock      Clock        `json:"clock"`
	Events     int          `json:"events"`
	Users      int          `json:"users"`
	Clients    int          `json:"clients"`
	LiveTokens int          `json:"liveTokens"`
	Faults     int          `json:"faults"`
	Journal    JournalState `json:"journal"`
}

// JournalState tells how full the journal is.
type JournalState struct {
	Entries  int `json:"entries"`
	Capacity int `json:"capacity"`
}

// Clock is the server's clock as the control API shows it.
type Clock struct {
	Now time.Time `json:"now"`
	// Moved is how far the clock has been moved forward, as a duration
	// ("1h0m0s") and in seconds.
	Moved        string  `json:"moved"`
	MovedSeconds float64 `json:"movedSeconds"`
}

func (c *Control) state() (State, error) {
	var s State
	l := c.opts.Server.Lifetimes()
	s.Conforms = l.Conforms()
	def := oauth.DefaultLifetimes()
	if l.Access != def.Access {
		s.NonConformance = append(s.NonConformance, fmt.Sprintf("access tokens live %d s; the specification says %d s (CLI-5)", l.Access/time.Second, def.Access/time.Second))
	}
	if l.Refresh != def.Refresh {
		s.NonConformance = append(s.NonConformance, fmt.Sprintf("refresh tokens live %d s; the specification says %d s (CLI-6)", l.Refresh/time.Second, def.Refresh/time.Second))
	}
	s.Lifetimes.AccessSeconds = int64(l.Access / time.Second)
	s.Lifetimes.RefreshSeconds = int64(l.Refresh / time.Second)
	s.Clock = c.clock()
	page, err := c.opts.Events.List(event.Query{Size: 1})
	if err != nil {
		return State{}, fmt.Errorf("count events: %w", err)
	}
	s.Events = page.Total
	s.Users = c.opts.Accounts.Len()
	s.Clients = c.opts.Clients.Len()
	s.LiveTokens = len(c.opts.Server.Tokens().Live())
	s.Faults = len(c.opts.Faults.List())
	s.Journal = JournalState{Entries: c.opts.Journal.Len(), Capacity: c.opts.Journal.Capacity()}
	return s, nil
}

func (c *Control) clock() Clock {
	moved := c.opts.Clock.Moved()
	return Clock{Now: c.opts.Clock.Now(), Moved: moved.String(), MovedSeconds: moved.Seconds()}
}

// handleState is GET /.
func (c *Control) handleState(ctx *fiber.Ctx) error {
	s, err := c.state()
	if err != nil {
		return err
	}
	return answer(ctx, http.StatusOK, s)
}

// resetInput is the body of POST /reset, which may be empty.
type resetInput struct {
	// To is "start" (the default): the events the server started with
	// (its -seed file, or its demo events), its accounts and clients; or
	// "snapshot": those POST /snapshot last kept.
	To string `json:"to"`
}

// handleReset is POST /reset: the events, accounts and clients the server
// started with, or those of the last snapshot; no token, no lockout, no
// fault, an empty journal, no client finding and the clock back on the
// machine's time. What the server offered its clients is kept, as a HAL
// client keeps the links it read.
func (c *Control) handleReset(ctx *fiber.Ctx) error {
	in := resetInput{To: "start"}
	if len(ctx.Body()) > 0 {
		if err := decodeStrict(ctx.Body(), &in); err != nil {
			return err
		}
	}
	var start []event.Event
	creds := c.start
	switch in.To {
	case "start", "":
		if c.opts.Start != nil {
			start = c.opts.Start()
		}
	case "snapshot":
		c.mu.Lock()
		snap := c.snapshot
		c.mu.Unlock()
		if snap == nil {
			return &apiError{Status: http.StatusConflict, Code: "no_snapshot", Description: "no snapshot was taken: POST /snapshot keeps the events, accounts and clients as they are, to reset to them"}
		}
		start, creds = slices.Clone(snap.events), snap.credentials
	default:
		return badRequest(`to %q must be "start" (the events, accounts and clients the server started with) or "snapshot" (those POST /snapshot kept)`, in.To)
	}
	c.credMu.Lock()
	defer c.credMu.Unlock()
	// Both were taken from the registries, so pass their checks again.
	if err := c.opts.Accounts.Replace(creds.accounts); err != nil {
		return fmt.Errorf("reset the accounts: %w", err)
	}
	if err := c.opts.Clients.Replace(creds.clients); err != nil {
		return fmt.Errorf("reset the clients: %w", err)
	}
	n := c.opts.Events.Replace(start)
	c.opts.Server.Tokens().Reset()
	c.opts.Server.ClearLockouts()
	faults := c.opts.Faults.Clear()
	c.opts.Journal.Clear()
	if c.opts.Findings != nil {
		c.opts.Findings.Clear()
	}
	c.opts.Clock.Reset()
	said(ctx, "reset to %s: %d events, %d accounts, %d clients, tokens, lockouts, %d faults, the journal, the client findings and the clock", in.To, n, len(creds.accounts), len(creds.clients), faults)
	s, err := c.state()
	if err != nil {
		return err
	}
	return answer(ctx, http.StatusOK, s)
}

// handleSnapshot is POST /snapshot: keep the events, accounts and clients
// as they are now (a test's seed, its creations, its users), so that POST
// /reset {"to": "snapshot"} puts them back; a later snapshot replaces it.
func (c *Control) handleSnapshot(ctx *fiber.Ctx) error {
	c.credMu.Lock()
	snap := &snapshot{events: c.opts.Events.All(), credentials: credentials{accounts: c.opts.Accounts.All(), clients: c.opts.Clients.All()}}
	c.credMu.Unlock()
	c.mu.Lock()
	c.snapshot = snap
	c.mu.Unlock()
	said(ctx, "snapshot: %d events, %d accounts, %d clients kept", len(snap.events), len(snap.accounts), len(snap.clients))
	return answer(ctx, http.StatusOK, fiber.Map{"events": len(snap.events), "users": len(snap.accounts), "clients": len(snap.clients)})
}
