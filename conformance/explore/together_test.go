package explore

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"eventsvc/conformance/explore/flawed"
	"eventsvc/conformance/report"
)

// together is a KindTogether of parts.
func together(parts ...Action) Action { return Action{Kind: KindTogether, Parts: parts} }

// replay runs actions once against target, as -replay does.
func replay(t *testing.T, target string, actions ...Action) (*report.ScenarioResult, string, error) {
	t.Helper()
	var out bytes.Buffer
	rep, err := Run(context.Background(), Options{Target: remote(target), Replay: &Replay{Actions: actions}, Output: &out})
	if rep == nil {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	sequences := sequencesOf(rep)
	if len(sequences) != 1 {
		t.Fatalf("Run = %v, %d sequences\n%s", err, len(sequences), out.String())
	}
	return sequences[0], out.String(), err
}

// sequencesOf are the sequences of rep, without the audit's findings
// (report.Audited) that follow them.
func sequencesOf(rep *report.Report) []*report.ScenarioResult {
	var out []*report.ScenarioResult
	for _, s := range rep.Scenarios {
		if s.File == File {
			out = append(out, s)
		}
	}
	return out
}

var (
	createAs  = func(who string) Action { return Action{Kind: KindCreate, As: who} }
	refreshOf = func(who string) Action { return Action{Kind: KindRefresh, As: who} }
	updateAs  = func(who string, event int, changes map[string]any) Action {
		return Action{Kind: KindUpdate, As: who, Event: event, Changes: changes}
	}
)

func TestActionsSentTogetherMeetAtTheTarget(t *testing.T) {
	var mu sync.Mutex
	inFlight, most, closed := 0, 0, 0
	held := flawed.Flaw{Name: "writes held", Request: func(_ *flawed.Proxy, _ http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool) {
		if r.Method == http.MethodGet {
			return body, false
		}
		mu.Lock()
		inFlight++
		most = max(most, inFlight)
		if r.Close && r.Method == http.MethodPost && r.URL.Path == "/api/events" && !bytes.Contains(body, []byte("Conformance preflight")) {
			closed++
		}
		mu.Unlock()
		time.Sleep(50 * time.Millisecond)
		mu.Lock()
		inFlight--
		mu.Unlock()
		return body, false
	}}
	res, out, err := replay(t, flawed.Start(t, held),
		createAs(AsUser),
		together(createAs(AsUser), createAs(AsOther), updateAs(AsUser, 0, map[string]any{"name": "Updated"}), refreshOf(AsOther)))
	if err != nil {
		t.Fatalf("Run = %v\n%s", err, out)
	}
	if most != 4 {
		t.Errorf("at most %d requests were at the target at once, want the 4 sent together", most)
	}
	if closed != 2 {
		t.Errorf("%d creations were sent on a connection of their own, closed after their answer, want the 2 sent together", closed)
	}
	if got := res.Steps[1].Text; !strings.HasPrefix(got, "at the same time: the user creates an event; the other user creates an event; the user updates event #1") {
		t.Errorf("the step reads %q", got)
	}
}

// TestTheReferenceServerTakesActionsSentTogether: the reference server
// applies actions sent at once in some order, which the model takes:
// creations of both users, updates of one event by its manager and by
// another user, refreshes of one refresh token (the reference server
// revokes the access token a refresh replaces), and the actions after
// them act with what they left.
func TestTheReferenceServerTakesActionsSentTogether(t *testing.T) {
	name := func(n string) map[string]any { return map[string]any{"name": n} }
	actions := []Action{
		createAs(AsUser),
		createAs(AsOther),
		together(createAs(AsUser), createAs(AsOther), updateAs(AsUser, 0, name("One")), updateAs(AsOther, 1, name("Two"))),
		together(updateAs(AsUser, 0, name("Three")), updateAs(AsUser, 0, map[string]any{"description": "Four"})),
		together(updateAs(AsOther, 0, name("Taken over")), updateAs(AsUser, 0, name("Five"))),
		together(refreshOf(AsUser), refreshOf(AsUser), refreshOf(AsOther)),
		{Kind: KindRead, As: AsUser, Event: 2},
		{Kind: KindRead, As: AsOther, Event: 3},
		together(refreshOf(AsUser), createAs(AsOther), createAs(AsOther), refreshOf(AsUser)),
		together(refreshOf(AsUser), createAs(AsUser)), // replays may mix them
		{Kind: KindWalk, As: AsUser, Size: 5},
		updateAs(AsUser, 0, name("Six")),
		{Kind: KindRead, As: AsUser, Event: 0},
	}
	var out bytes.Buffer
	rep, err := Run(context.Background(), Options{Target: inProcess(t), Replay: &Replay{Actions: actions}, Ref: true, Output: &out})
	if err != nil {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	if steps := rep.Scenarios[0].Steps; len(steps) != len(actions) {
		t.Fatalf("%d actions ran of %d\n%s", len(steps), len(actions), out.String())
	}
	for _, rule := range []string{"API-6", "API-9", "AUTH-6", "TOK-4"} {
		for _, r := range rep.Rules {
			if r.ID == rule && r.Verdict != report.Passed {
				t.Errorf("%s: %s", rule, r.Verdict)
			}
		}
	}
}

// TestWhatNoSerialOrderGivesIsFound: a target that does with actions sent
// at once what no order of them does is found, and the rule it breaks
// blamed.
func TestWhatNoSerialOrderGivesIsFound(t *testing.T) {
	for _, tt := range []struct {
		flaw    flawed.Flaw
		actions []Action
		rule    string
		says    string
	}{
		{flawed.Flaw{Name: "one event for two creations", Request: flawed.OneEventForTwo},
			[]Action{together(createAs(AsUser), createAs(AsOther))},
			"API-6", "the creation was answered with the address of an event created at the same time"},
		{flawed.Flaw{Name: "a creation that meets an update lost", Request: flawed.LoseCreationsThatMeetUpdates},
			[]Action{createAs(AsOther), together(updateAs(AsOther, 0, map[string]any{"name": "Moved"}), createAs(AsUser))},
			"API-6", "is not there: reading it answered 404"},
		{flawed.Flaw{Name: "updates that meet mixed", Request: flawed.MixUpdatesThatMeet},
			[]Action{createAs(AsUser), together(updateAs(AsUser, 0, map[string]any{"name": "Renamed"}), updateAs(AsUser, 0, map[string]any{"description": "Described"}))},
			"API-9", "reads back as"},
		{flawed.Flaw{Name: "another user's refused update stored after the manager's it meets", Request: flawed.StoreRefusedUpdatesThatMeet},
			[]Action{createAs(AsUser), together(updateAs(AsOther, 0, map[string]any{"location": "Taken over"}), updateAs(AsUser, 0, map[string]any{"name": "Mine"}))},
			"AUTH-6", "reads back as a write that was refused (AUTH-6): a refused write changes nothing"},
		{flawed.Flaw{Name: "the second of refreshes that meet refused", Request: flawed.RefuseTheSecondOfRefreshesThatMeet},
			[]Action{together(refreshOf(AsUser), refreshOf(AsUser))},
			"TOK-4", "no answer replaced the refresh token, which stays valid (RFC 6749 §6)"},
		{flawed.Flaw{Name: "the tokens of refreshes that meet dead", Request: flawed.KillTokensOfRefreshesThatMeet},
			[]Action{together(refreshOf(AsOther), refreshOf(AsOther))},
			"TOK-8", "with a valid access token, does not offer \"create-new-event\""},
	} {
		t.Run(tt.flaw.Name, func(t *testing.T) {
			t.Parallel()
			res, out, err := replay(t, flawed.Start(t, tt.flaw), tt.actions...)
			if !errors.Is(err, ErrFailed) || res.Failure == nil || len(res.Failure.Rules) != 1 || res.Failure.Rules[0] != tt.rule {
				t.Fatalf("Run = %v, want a finding of %s\n%s", err, tt.rule, out)
			}
			if !strings.Contains(res.Failure.Message, tt.says) {
				t.Errorf("the finding says %q, want %q", res.Failure.Message, tt.says)
			}
			if !strings.HasPrefix(res.Failure.Step, "* at the same time: ") {
				t.Errorf("the finding is about %q, not the actions sent at once", res.Failure.Step)
			}
			res, out, err = replay(t, flawed.Start(t, flawed.Flaw{Name: "none"}), tt.actions...)
			if err != nil {
				t.Fatalf("the same actions against the reference server: Run = %v\n%s", err, out)
			}
		})
	}
}

func TestARotatingTargetMayRefuseTheSecondOfTwoRefreshesSentTogether(t *testing.T) {
	var mu sync.Mutex
	refused := 0
	rotating := flawed.Flaw{Name: "rotating", Request: func(p *flawed.Proxy, w http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool) {
		sw := &statusWriter{ResponseWriter: w}
		body, done := flawed.RotateRefreshTokens(p, sw, r, body)
		if sw.status == http.StatusBadRequest {
			mu.Lock()
			refused++
			mu.Unlock()
		}
		return body, done
	}}
	res, out, err := replay(t, flawed.Start(t, rotating),
		createAs(AsUser),
		together(refreshOf(AsUser), refreshOf(AsUser)),
		together(refreshOf(AsUser), createAs(AsOther)),
		Action{Kind: KindRead, As: AsUser, Event: 0},
		refreshOf(AsUser),
		updateAs(AsUser, 0, map[string]any{"name": "Still mine"}))
	if err != nil {
		t.Fatalf("Run = %v\n%s", err, out)
	}
	if refused != 1 {
		t.Errorf("%d refreshes were refused, want the second of the two sent together", refused)
	}
	if len(res.Steps) != 6 {
		t.Errorf("%d actions ran of 6", len(res.Steps))
	}
}

// statusWriter notes the status a handler answered.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	w.status = status
	w.ResponseWriter.WriteHeader(status)
}

func TestTwoCreationsOneAfterAnotherMakeTwoEvents(t *testing.T) {
	res, out, err := replay(t, flawed.Start(t, flawed.Flaw{Name: "the same body, the same event", Request: flawed.SameBodySameEvent}), createAs(AsUser), createAs(AsOther))
	if !errors.Is(err, ErrFailed) || res.Failure.Rules[0] != "API-6" || !strings.Contains(res.Failure.Message, "the creation was answered with the address of an event created before") {
		t.Fatalf("Run = %v\n%s", err, out)
	}
}
