// Package eventsvctest runs the Event Service reference server inside a
// Go test, for the tests of a client of the Event Service: the real
// server (Fiber, bcrypt, the token endpoint and the API as `eventsvc
// serve` answers them) on a loopback port, and its control API on
// another, with typed helpers to steer it. It is to the reference server
// what net/http/httptest is to an http.Handler.
//
// NewServer starts both and stops both, gracefully, when the test ends.
// Unless Options say otherwise, the server starts with:
//
//   - the demo credentials: client ClientID / ClientSecret ("myApp" /
//     "pass", grants password and refresh_token), accounts User /
//     UserPassword ("user@email.com" / "user", USER) and Admin /
//     AdminPassword ("admin@email.com" / "admin", ADMIN and USER), their
//     secrets hashed by bcrypt at its lowest cost so that logins are fast;
//     AddUser and AddClient add others while the test runs, ChangeUser
//     and ChangeClient change a password, a secret, roles or scopes, and
//     RemoveUser and RemoveClient remove one and revoke its tokens (Users
//     and Clients list them; Reset puts back those the server started
//     with);
//   - DemoEvents (25) demo events, dated from the server's clock and
//     managed in turn by each account; Options.Events or
//     Options.NoDemoEvents replace them;
//   - the specification's token lifetimes, 600 s for an access token and
//     3600 s for a refresh token (Options.AccessTTL, Options.RefreshTTL);
//   - the machine's clock, which AdvanceClock moves forward
//     (Options.Clock: clock.NewManual(t) for one that stands still);
//   - the lockout of repeated failed logins and the budget of token
//     requests of `eventsvc serve`; Reset lifts them;
//   - a journal of the last 500 requests, and no fault rule;
//   - the client checks: the server judges every request against the
//     client's side of the specification (an address built rather than
//     read from a link, a write no link offered, a token request without
//     HTTP Basic or a form body, a token out of its place), and
//     ClientFindings returns what it found; Options.FailOnClientFindings
//     fails the test at its end when the client left any;
//   - a quiet log: the requests, the control API's writes and the cause
//     of any failure (500) are kept, and written to the test's log only
//     when the test has failed.
//
// The methods of a Server call the control API over HTTP, as a test in
// another language would (docs/control-api.md). Each takes the calling
// test's testing.TB, so that it is called from subtests too, and fails
// that test, with the control API's error_description, when the control
// API refuses the request: a test reads as a list of steps, with no error
// to check after each.
//
// A client's test injects a fault, runs the client, and checks what the
// client sent:
//
//	func TestListRetriesOnce(t *testing.T) {
//		srv := eventsvctest.NewServer(t, eventsvctest.Options{})
//		srv.AddFault(t, eventsvctest.Fault{Method: "GET", Path: "/api/events", Times: 1,
//			Answer: eventsvctest.Answer{Status: 503, Headers: map[string]string{"Retry-After": "1"}}})
//
//		events, err := myclient.New(srv.URL + "/api").ListEvents(ctx)
//		if err != nil {
//			t.Fatal(err)
//		}
//		if n := srv.JournalCount(t, eventsvctest.JournalFilter{Method: "GET", Path: "/api/events"}); n != 2 {
//			t.Fatalf("the client asked %d times, want 2: one 503, one retry", n)
//		}
//		…
//	}
//
// The package's example_test.go is a whole client and its tests: a retry
// on 503 that honours Retry-After, and a refresh after a revocation.
package eventsvctest
