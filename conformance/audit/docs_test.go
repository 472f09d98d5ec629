package audit

import "testing"

// TestTheDocumentationIsServedToEveryCaller: the documentation's page is
// served to a caller without credentials (SVC-6) and to one with any
// Authorization header (AUTH-5); nothing under /docs/ is refused for the
// credentials sent; a page of it that is not there is no fault.
func TestTheDocumentationIsServedToEveryCaller(t *testing.T) {
	r := newRig(t)
	html := "Content-Type: text/html"
	want(t, "served", r.send("GET", "/docs/index.html", "", "", 200, html, "<p>docs</p>"))
	want(t, "served with a made-up token", r.send("GET", "/docs/index.html", "Authorization: Bearer made-up", "", 200, html, "<p>docs</p>"))
	want(t, "refused without credentials", r.send("GET", "/docs/index.html", "", "", 401, "", ""), "SVC-6")
	want(t, "refused for a made-up token", r.send("GET", "/docs/index.html", "Authorization: Bearer made-up", "", 401, "", ""), "AUTH-5")
	want(t, "not there", r.send("GET", "/docs/index.html", "", "", 404, "", ""), "SVC-6")
	want(t, "another page refused for a bad header", r.send("GET", "/docs/openapi.json", "Authorization: Basic !!", "", 403, "", ""), "AUTH-5")
	want(t, "another page not there", r.send("GET", "/docs/nothing.html", "", "", 404, "", ""))
	want(t, "a redirect", r.send("GET", "/docs/index.html", "", "", 302, "Location: /docs/", ""))
	if n := r.a.Checks()["SVC-6"]; n != 4 {
		t.Errorf("SVC-6 was checked %d times, want 4", n)
	}
}

// TestATokenWithItsSchemeSpeltOtherwiseCountsAsAJudgmentOfSVC7: every
// checked exchange under /api sent with a valid token whose scheme is
// spelt other than "Bearer" counts a check of SVC-7, which the token not
// honoured finds broken.
func TestATokenWithItsSchemeSpeltOtherwiseCountsAsAJudgmentOfSVC7(t *testing.T) {
	r, _ := withUser(t)
	list := page(readLinks + `,"create-new-event":{"href":"/api/events"}`)
	want(t, "bearer, honoured", r.send("GET", "/api/events", "Authorization: bearer tok-user", "", 200, jsonType, list))
	if n := r.a.Checks()["SVC-7"]; n != 1 {
		t.Errorf("SVC-7 was checked %d times, want 1", n)
	}
	want(t, "Bearer, honoured", r.send("GET", "/api/events", "Authorization: Bearer tok-user", "", 200, jsonType, list))
	if n := r.a.Checks()["SVC-7"]; n != 1 {
		t.Errorf("SVC-7 was checked %d times after a plain Bearer, want 1", n)
	}
}
