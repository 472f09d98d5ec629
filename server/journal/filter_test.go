package journal

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"eventsvc/server/clock"
	"eventsvc/server/fault"
)

// TestFilterPicksTokenRequestsByGrantType: the grant type is the one the
// token endpoint reads from a form-encoded POST, whatever the case of its
// media type, even when the recorded body is cut before it; a grant_type
// anywhere else (a query, a body that is not a form, another path) is no
// token request's.
func TestFilterPicksTokenRequestsByGrantType(t *testing.T) {
	j := New(20, clock.System{})
	base := serve(t, j, fault.NewSet(func() float64 { return 0 }))
	send := func(method, path, contentType, body string) {
		t.Helper()
		req, _ := http.NewRequest(method, base+path, strings.NewReader(body))
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	form := "application/x-www-form-urlencoded"
	send("POST", "/oauth/token", form, "grant_type=password&username=u&password=p")
	send("POST", "/oauth/token", "Application/X-WWW-Form-Urlencoded; Charset=UTF-8", "grant_type=refresh_token&refresh_token="+another)
	// The grant type after more than MaxBody bytes: the entry's body is
	// cut before it.
	send("POST", "/oauth/token", form, "scope="+strings.Repeat("a", MaxBody)+"&grant_type=refresh_token&refresh_token="+another)
	send("POST", "/oauth/token", "text/plain", "grant_type=refresh_token")
	send("GET", "/api/events?grant_type=refresh_token", "", "")
	send("POST", "/api/events", form, "grant_type=refresh_token")

	for grantType, want := range map[string][]int64{
		"password":           {1},
		"refresh_token":      {2, 3},
		"REFRESH_TOKEN":      nil,
		"client_credentials": nil,
	} {
		var got []int64
		for _, e := range j.Find(Filter{GrantType: grantType}, 0) {
			got = append(got, e.ID)
		}
		if !equal(got, want) || j.Count(Filter{GrantType: grantType}) != len(want) {
			t.Errorf("grantType %q picks entries %v, want %v", grantType, got, want)
		}
	}
	if n := j.Count(Filter{GrantType: "refresh_token", SinceID: 2}); n != 1 {
		t.Errorf("grantType with since picks %d entries, want 1", n)
	}
	if !j.Last(0)[2].Request.Truncated {
		t.Fatalf("the long token request's body was not cut: the test does not test what it says")
	}
}

func equal(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestParseFilterReadsGrantType: grantType is read as given, and refused,
// naming it, when it is empty, longer than a fault rule's grantType may
// be, or holds what no grant type holds.
func TestParseFilterReadsGrantType(t *testing.T) {
	f, err := ParseFilter(url.Values{"grantType": {"urn:ietf:params:oauth:grant-type:jwt-bearer"}, "method": {"post"}})
	if err != nil || f.GrantType != "urn:ietf:params:oauth:grant-type:jwt-bearer" || f.Method != "POST" {
		t.Fatalf("ParseFilter = %+v, %v", f, err)
	}
	for value, want := range map[string]string{
		"": `grantType is empty`,
		strings.Repeat("a", fault.MaxPatternLen+1): "257 bytes long; at most 256",
		"refresh token":    `grantType "refresh token" must be a grant type`,
		"refresh\x00token": "must be a grant type",
		"réfresh":          "must be a grant type",
	} {
		_, err := ParseFilter(url.Values{"grantType": {value}})
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseFilter(grantType=%.20q) = %v, want an error saying %q", value, err, want)
		}
	}
	if _, err := ParseFilter(url.Values{"grant_type": {"password"}}); err == nil || !strings.Contains(err.Error(), "grantType") {
		t.Errorf("ParseFilter(grant_type) = %v, want it refused, naming grantType among the filters", err)
	}
}
