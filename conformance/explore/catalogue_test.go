package explore

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"eventsvc/conformance/explore/flawed"
	"eventsvc/conformance/mutate"
	"eventsvc/conformance/othersvc"
	"eventsvc/conformance/report"
	"eventsvc/conformance/target"
)

// TestEveryRunSendsEveryOperatorOfTheCatalogue: whatever the seed, and
// however few actions the drawn sequences have, a run sends a variant of
// every operator of the catalogue it may send (all but those only the
// reference server's choices judge, without -ref): the catalogue pass.
// A fault that one of them shows stops its sequence, not the pass: the
// variants after it go out in the next sequence.
func TestEveryRunSendsEveryOperatorOfTheCatalogue(t *testing.T) {
	repeatedSlash := flawed.Flaw{Name: "a repeated slash fails the server", Request: func(_ *flawed.Proxy, w http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool) {
		if strings.Contains(r.URL.EscapedPath(), "//") {
			http.Error(w, `{"error":"internal"}`, http.StatusInternalServerError)
			return nil, true
		}
		return body, false
	}}
	for _, tc := range []struct {
		flaw flawed.Flaw
		seed uint64
	}{{flawed.Flaw{Name: "none"}, 1}, {flawed.Flaw{Name: "none"}, 2}, {repeatedSlash, 3}} {
		var out bytes.Buffer
		rep, err := Run(context.Background(), Options{Target: remote(flawed.Start(t, tc.flaw)), Seed: tc.seed, MaxActions: 1, Output: &out})
		if tc.flaw.Request == nil && err != nil || tc.flaw.Request != nil && !errors.Is(err, ErrFailed) {
			t.Fatalf("%s, seed %d: Run = %v\n%s", tc.flaw.Name, tc.seed, err, out.String())
		}
		for _, v := range rep.Varied {
			op, _ := mutate.Find(v.Operator)
			if op.Ref && (v.Sent > 0 || v.Reason != "-ref only") || !op.Ref && v.Sent == 0 {
				t.Errorf("%s, seed %d: %q sent %d variants (%s)", tc.flaw.Name, tc.seed, v.Operator, v.Sent, v.Reason)
			}
		}
		if tc.flaw.Request == nil {
			continue
		}
		failed := 0
		for _, s := range rep.Scenarios {
			if s.Sequence() && s.Verdict == report.Failed {
				failed++
				if !strings.Contains(s.Name, "the catalogue's first variants") || !s.Failure.ServerError {
					t.Errorf("%s: %s failed: %+v", tc.flaw.Name, s.Name, s.Failure)
				}
			}
		}
		if failed == 0 {
			t.Errorf("%s: no sequence of the catalogue pass failed\n%s", tc.flaw.Name, out.String())
		}
	}
}

// TestAWriteTakenFromAnyoneIsBlamedOnItsRuleAlone: a server whose router
// collapses repeated slashes behind a filter that matches the path as
// sent takes a creation at /api//events from anyone. The variants that
// send it with a refresh token or the client's Basic credentials are
// sent again without any, so the run blames the missing check (AUTH-3,
// and AUTH-4 where the path is not under /api/ as written), never the
// refresh token's rule or the client's.
func TestAWriteTakenFromAnyoneIsBlamedOnItsRuleAlone(t *testing.T) {
	srv := othersvc.Start(t, othersvc.Config{Flaws: othersvc.Flaws{DoubleSlash: true}})
	var out bytes.Buffer
	rep, err := Run(context.Background(), Options{Target: target.Target{BaseURL: srv.URL, Credentials: othersvc.Creds, RunID: "explore-test", EventBody: []byte(othersvc.EventBody)}, Seed: 1, MaxActions: 40, Output: &out})
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	for _, s := range rep.Scenarios {
		for _, rule := range s.Blamed() {
			if rule != "AUTH-3" && rule != "AUTH-4" {
				t.Errorf("%s blames %s: %s", s.Name, rule, s.Failure.Message)
			}
		}
	}
}

// TestTheBodysVariantsGoOutCombinedAndSplitOnFailure: the catalogue pass
// sends every odd text of an update in every field, combined, in as few
// updates as there are texts; a server that fails on one text in one
// field fails on a combination, which shrinking splits down to the one
// variant that fails.
func TestTheBodysVariantsGoOutCombinedAndSplitOnFailure(t *testing.T) {
	dropTable := answering("an update whose location drops a table fails the server", http.MethodPut, func(sent map[string]any) bool {
		return strings.Contains(fmt.Sprint(sent["location"]), "DROP TABLE")
	}, http.StatusInternalServerError, `{"error":"internal"}`)
	var out bytes.Buffer
	rep, err := Run(context.Background(), Options{Target: remote(flawed.Start(t, dropTable)), Seed: 5, MaxActions: 1, Output: &out})
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	for _, v := range rep.Varied {
		if op, _ := mutate.Find(v.Operator); op.Family == mutate.FamilyBody && op.On == mutate.OnUpdate && v.Sent < 5 || v.Operator == "an odd text, in an update" && v.Sent < 12 {
			t.Errorf("%q: %d variants sent, want every one of them", v.Operator, v.Sent)
		}
	}
	shrunk := lastShrunk(rep)
	if shrunk == nil || !shrunk.Failure.ServerError {
		t.Fatalf("no shrunk server error\n%s", out.String())
	}
	last := shrunk.Steps[len(shrunk.Steps)-1].Text
	if !strings.Contains(last, "sends variant") || !strings.Contains(last, "an odd text, in an update") || !strings.Contains(last, `"location"`) {
		t.Errorf("the shrunk sequence ends with %q, want the one variant that fails", last)
	}
}

// TestACreationsDrawnVariantsGoOutCombinedAndSplitOnFailure: after the
// catalogue pass, which sends a creation's first variant alone (null in
// the first field), the drawn sequences send the combinations (null in
// every field at once, then each field's next value); a server that fails
// on one of them is found there, and shrinking splits the combination
// down to that variant.
func TestACreationsDrawnVariantsGoOutCombinedAndSplitOnFailure(t *testing.T) {
	nullLocation := answering("a creation whose location is null fails the server", http.MethodPost, locationIsNull,
		http.StatusInternalServerError, `{"error":"internal"}`)
	var out bytes.Buffer
	rep, err := Run(context.Background(), Options{Target: remote(flawed.Start(t, nullLocation)), Seed: 5, MaxActions: 400, Output: &out})
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	shrunk := lastShrunk(rep)
	if shrunk == nil || !shrunk.Failure.ServerError || strings.Contains(shrunk.Name, "first variants") {
		t.Fatalf("no shrunk server error of a drawn sequence\n%s", out.String())
	}
	last := shrunk.Steps[len(shrunk.Steps)-1].Text
	if !strings.Contains(last, "sends variant") || !strings.Contains(last, "a value of another type") || !strings.Contains(last, `"location" set to null`) {
		t.Errorf("the shrunk sequence ends with %q, want the one variant that fails", last)
	}

	// Refused as a whole for one of them, a combination is sent apart:
	// the location alone, the description as it was.
	var alone atomic.Int64
	refuseNullLocation := answering("a creation whose location is null is refused", http.MethodPost, func(sent map[string]any) bool {
		if locationIsNull(sent) && sent["description"] == "Created by the Event Service conformance suite" {
			alone.Add(1)
		}
		return locationIsNull(sent)
	}, http.StatusBadRequest, `{"error":"bad_request","error_description":"location is a text"}`)
	out.Reset()
	if _, err := Run(context.Background(), Options{Target: remote(flawed.Start(t, refuseNullLocation)), Seed: 5, MaxActions: 400, Output: &out}); err != nil {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	if alone.Load() == 0 {
		t.Errorf("no creation sent the location as null alone after its combination was refused\n%s", out.String())
	}
}

// TestTheTokensPlacesGoOutCombinedAndSplitOnFailure: the catalogue pass
// sends an update with the token in every cookie at once; a server that
// reads it from one of them takes the update (SVC-4), and shrinking
// splits the combination down to that cookie.
func TestTheTokensPlacesGoOutCombinedAndSplitOnFailure(t *testing.T) {
	jwtCookie := flawed.Flaw{Name: "an update takes the token from the cookie jwt", Request: func(_ *flawed.Proxy, _ http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool) {
		if c, err := r.Cookie("jwt"); err == nil && r.Method == http.MethodPut && r.Header.Get("Authorization") == "" {
			r.Header.Set("Authorization", "Bearer "+c.Value)
		}
		return body, false
	}}
	var out bytes.Buffer
	rep, err := Run(context.Background(), Options{Target: remote(flawed.Start(t, jwtCookie)), Seed: 5, MaxActions: 1, Output: &out})
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	shrunk := lastShrunk(rep)
	if shrunk == nil || !slices.Equal(shrunk.Blamed(), []string{"SVC-4"}) {
		t.Fatalf("no shrunk finding of SVC-4\n%s", out.String())
	}
	if last := shrunk.Steps[len(shrunk.Steps)-1].Text; !strings.Contains(last, "sends variant") || !strings.Contains(last, `the cookie \"jwt\"`) && !strings.Contains(last, `the cookie "jwt"`) {
		t.Errorf("the shrunk sequence ends with %q, want the cookie jwt alone", last)
	}
}

// TestThePassEndsWhenWhatItAddsFails: a target whose every password
// grant breaks a rule (its answer may be cached, TOK-15) fails the grant
// the pass sends before a refresh's variants: those variants go unsent,
// and the pass goes on to the rest of the catalogue, not round again.
func TestThePassEndsWhenWhatItAddsFails(t *testing.T) {
	srv := othersvc.Start(t, othersvc.Config{Flaws: othersvc.Flaws{TokensCacheable: true}})
	var out bytes.Buffer
	rep, err := Run(context.Background(), Options{Target: target.Target{BaseURL: srv.URL, Credentials: othersvc.Creds, RunID: "explore-test", EventBody: []byte(othersvc.EventBody)},
		Seed: 1, MaxActions: 5, MaxTime: 20 * time.Second, Output: &out})
	if !errors.Is(err, ErrFailed) {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	pass := 0
	for _, s := range rep.Scenarios {
		if strings.Contains(s.Name, "the catalogue's first variants") {
			pass++
		}
	}
	if pass > 20 {
		t.Errorf("%d sequences of the catalogue pass: it went round again", pass)
	}
}

// lastShrunk is the last failed sequence of rep that was shrunk (not one
// that points to another showing the same finding), or nil.
func lastShrunk(rep *report.Report) *report.ScenarioResult {
	var shrunk *report.ScenarioResult
	for _, s := range rep.Scenarios {
		if s.Sequence() && s.Verdict == report.Failed && !strings.Contains(s.Name, "another finding") {
			shrunk = s
		}
	}
	return shrunk
}

// answering is a flaw that answers status and answer, in place of the
// server, to a request of method whose JSON body when holds for.
func answering(name, method string, when func(sent map[string]any) bool, status int, answer string) flawed.Flaw {
	return flawed.Flaw{Name: name, Request: func(_ *flawed.Proxy, w http.ResponseWriter, r *http.Request, body []byte) ([]byte, bool) {
		var sent map[string]any
		if r.Method == method && json.Unmarshal(body, &sent) == nil && when(sent) {
			http.Error(w, answer, status)
			return nil, true
		}
		return body, false
	}}
}

// locationIsNull reports whether a body sent its location as null.
func locationIsNull(sent map[string]any) bool {
	v, sentIt := sent["location"]
	return sentIt && v == nil
}
