package control

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestTheJournalNeverHoldsASecret: token requests whose media type is
// written in any case, a refresh, secret headers of any name, and a token
// request whose body cannot be masked (not a form) leave no password,
// client secret, token or key in the journal.
func TestTheJournalNeverHoldsASecret(t *testing.T) {
	r := newRig(t, "")
	token := func(contentType, body string, headers map[string]string) map[string]any {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, r.public+"/oauth/token", strings.NewReader(body))
		req.SetBasicAuth("myApp", "pass")
		req.Header.Set("Content-Type", contentType)
		for k, v := range headers {
			req.Header.Set(k, v)
		}
		_, answer := do(t, req)
		return answer
	}
	login := url.Values{"grant_type": {"password"}, "username": {"user@email.com"}, "password": {"user"}}.Encode()
	first := token("Application/X-WWW-Form-Urlencoded", login, map[string]string{
		"X-Api-Key": "key-of-the-client-1234", "X-Auth-Token": "auth-token-5678", "X-Client-Secret": "client-secret-90ab",
		"Cookie": "session=cookie-value-cdef", "My-Session-Id": "session-id-0011",
	})
	refresh, _ := first["refresh_token"].(string)
	if refresh == "" {
		t.Fatalf("the mixed-case token request got no token: %v", first)
	}
	second := token("APPLICATION/X-WWW-FORM-URLENCODED; Charset=UTF-8", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}}.Encode(), nil)
	if second["access_token"] == nil {
		t.Fatalf("the refresh got no token: %v", second)
	}
	token("text/plain", "grant_type=password&username=user%40email.com&password=plain-text-password", nil)
	token("application/x-www-form-urlencoded", "grant_type=password&username=user%40email.com&password=half%ZZ-escaped-password", nil)

	status, body := r.call(t, http.MethodGet, "/journal", "")
	raw := mustJSON(t, body)
	if status != http.StatusOK || len(body["entries"].([]any)) != 4 {
		t.Fatalf("GET /journal = %d %s", status, raw)
	}
	var leaks, missing []string
	for _, secret := range []string{
		"password=user", refresh, first["access_token"].(string), second["access_token"].(string), second["refresh_token"].(string),
		"key-of-the-client-1234", "auth-token-5678", "client-secret-90ab", "cookie-value-cdef", "session-id-0011",
		"plain-text-password", "escaped-password", "bXlBcHA6cGFzcw",
	} {
		if strings.Contains(raw, secret) {
			leaks = append(leaks, secret)
		}
	}
	for _, want := range []string{"password=***", `refresh_token=***`, "not recorded"} {
		if !strings.Contains(raw, want) {
			missing = append(missing, want)
		}
	}
	if leaks != nil || missing != nil {
		t.Fatalf("the journal holds %q and does not show %q:\n%s", leaks, missing, raw)
	}
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestTheJournalIsFilteredCountedAndCleared: the journal's filters pick
// entries by method, path pattern, status or its class, fault and since;
// /journal/count counts them; an unknown parameter or a bad value is
// refused with 400 naming it, and changes nothing; DELETE /journal
// empties it; every entry carries its request as a masked curl command.
func TestTheJournalIsFilteredCountedAndCleared(t *testing.T) {
	r := newRig(t, "")
	r.call(t, http.MethodPost, "/faults", `{"method": "GET", "path": "/api/events/*", "times": 1, "status": 503}`)
	for _, p := range []string{"/api", "/api/events", "/api/events/1", "/api/events/1", "/api/events/999999", "/docs/index.html"} {
		r.raw(t, "GET", p, "Bearer some-token-value", "", "")
	}
	r.raw(t, "POST", "/api/events", "", "application/json", `{"name": "x"}`)
	r.wantCounts(t, map[string]int{
		"":                            7,
		"?method=get":                 6,
		"?path=/api/events/*":         3,
		"?path=/api/**&method=POST":   1,
		"?status=503":                 1,
		"?status=4xx":                 2, // the missing event, and the creation without a token
		"?fault=any":                  1,
		"?fault=none":                 6,
		"?status=2xx&path=/api/**":    3,
		"?since=5":                    2,
		"?since=2000-01-01T00:00:00Z": 7,
	})
	entry, _ := r.oneEntry(t, "?path=/api/events/*&limit=1")
	curl, _ := entry["curl"].(string)
	if !strings.HasPrefix(curl, "curl -i 'http://127.0.0.1:") || !strings.Contains(curl, "/api/events/999999'") || !strings.Contains(curl, "-H 'Authorization: Bearer ***'") || strings.Contains(curl, "some-token-value") {
		t.Errorf("the entry's curl command: %q", curl)
	}
	for query, want := range map[string]string{
		"?colour=red":            `unknown parameter "colour"`,
		"?status=42":             "a status such as 404",
		"?fault=maybe":           "any or none",
		"?since=yesterday":       "an entry's id, or a time",
		"?path=api":              `must start with "/"`,
		"?method=GE%20T":         "HTTP method",
		"?status=500&status=503": "given 2 times",
	} {
		status, body := r.call(t, http.MethodGet, "/journal/count"+query, "")
		desc, _ := body["error_description"].(string)
		if status != http.StatusBadRequest || !strings.Contains(desc, want) {
			t.Errorf("count%s = %d %q, want 400 saying %q", query, status, desc, want)
		}
	}
	if status, body := r.call(t, http.MethodGet, "/journal?limit=0", ""); status != http.StatusBadRequest {
		t.Errorf("limit=0 = %d %v", status, body)
	}
	if got := r.journalCount(t, ""); got != 7 {
		t.Fatalf("refused queries changed the journal: %d entries", got)
	}
	if status, body := r.call(t, http.MethodDelete, "/journal", ""); status != http.StatusOK || body["cleared"] != float64(7) {
		t.Fatalf("DELETE /journal = %d %v", status, body)
	}
	r.raw(t, "GET", "/api", "", "", "")
	_, body := r.call(t, http.MethodGet, "/journal", "")
	entries, _ := body["entries"].([]any)
	if len(entries) != 1 || entries[0].(map[string]any)["id"] != float64(8) {
		t.Fatalf("after DELETE /journal and one request: %v", body)
	}
}

// TestTheJournalIsFilteredByGrantType: grantType picks the token requests
// of one grant type, refused ones too, on GET /journal and GET
// /journal/count alike; an empty, overlong or impossible grant type is
// refused with 400 naming it, and the journal is left as it was.
func TestTheJournalIsFilteredByGrantType(t *testing.T) {
	r := newRig(t, "")
	token := func(form url.Values) map[string]any {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, r.public+"/oauth/token", strings.NewReader(form.Encode()))
		req.SetBasicAuth("myApp", "pass")
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		_, answer := do(t, req)
		return answer
	}
	first := token(url.Values{"grant_type": {"password"}, "username": {"user@email.com"}, "password": {"user"}})
	refresh, _ := first["refresh_token"].(string)
	if refresh == "" {
		t.Fatalf("the login got no token: %v", first)
	}
	token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {refresh}})
	token(url.Values{"grant_type": {"refresh_token"}, "refresh_token": {"not-a-refresh-token"}})
	token(url.Values{"grant_type": {"client_credentials"}})
	r.raw(t, "GET", "/api/events?grant_type=refresh_token", "", "", "")

	r.wantCounts(t, map[string]int{
		"?grantType=password":                   1,
		"?grantType=refresh_token":              2,
		"?grantType=refresh_token&status=2xx":   1,
		"?grantType=client_credentials":         1,
		"?grantType=authorization_code":         0,
		"?grantType=refresh_token&method=GET":   0,
		"?grantType=refresh_token&since=2":      1,
		"?grantType=refresh_token&path=/api/**": 0,
	})
	entry, body := r.oneEntry(t, "?grantType=refresh_token&limit=1")
	if entry["status"] != float64(http.StatusBadRequest) {
		t.Fatalf("GET /journal?grantType=refresh_token&limit=1 = %v, want the refused refresh", body)
	}
	if raw := mustJSON(t, body); strings.Contains(raw, "not-a-refresh-token") || strings.Contains(raw, "grantType") {
		t.Errorf("the entry shows the refresh token, or a property the document does not have: %s", raw)
	}
	for query, want := range map[string]string{
		"?grantType=":                                 "grantType is empty",
		"?grantType=" + strings.Repeat("g", 257):      "257 bytes long; at most 256",
		"?grantType=refresh%20token":                  `grantType "refresh token" must be a grant type`,
		"?grantType=password&grantType=refresh_token": `"grantType" is given 2 times`,
		"?grant_type=password":                        `unknown parameter "grant_type"`,
	} {
		for _, path := range []string{"/journal/count", "/journal"} {
			status, body := r.call(t, http.MethodGet, path+query, "")
			desc, _ := body["error_description"].(string)
			if status != http.StatusBadRequest || !strings.Contains(desc, want) {
				t.Errorf("GET %s%.40s = %d %q, want 400 saying %q", path, query, status, desc, want)
			}
		}
	}
	if got := r.journalCount(t, ""); got != 5 {
		t.Fatalf("refused queries changed the journal: %d entries, want 5", got)
	}
}

// wantCounts checks that GET /journal/count answers each query of want
// with its count.
func (r *rig) wantCounts(t *testing.T, want map[string]int) {
	t.Helper()
	for query, n := range want {
		if got := r.journalCount(t, query); got != n {
			t.Errorf("count%s = %d, want %d", query, got, n)
		}
	}
}

// journalCount is GET /journal/count with query ("?method=GET"), which
// must answer 200.
func (r *rig) journalCount(t *testing.T, query string) int {
	t.Helper()
	status, body := r.call(t, http.MethodGet, "/journal/count"+query, "")
	if status != http.StatusOK {
		t.Fatalf("GET /journal/count%s = %d %v", query, status, body)
	}
	return int(body["count"].(float64))
}

// oneEntry is GET /journal with query, which must answer 200 with one
// entry: the entry and the whole body.
func (r *rig) oneEntry(t *testing.T, query string) (entry, body map[string]any) {
	t.Helper()
	status, body := r.call(t, http.MethodGet, "/journal"+query, "")
	entries, _ := body["entries"].([]any)
	if status != http.StatusOK || len(entries) != 1 {
		t.Fatalf("GET /journal%s = %d %v, want one entry", query, status, body)
	}
	entry, _ = entries[0].(map[string]any)
	return entry, body
}
