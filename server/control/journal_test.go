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
