package control

import (
	"net/http"
	"strings"
	"testing"
)

// TestFindingsAreReadFilteredAndCleared: GET /findings lists what the
// public server's clients did wrong, as its OpenAPI document describes,
// filtered by rule and since; a filter it cannot read is refused with 400
// naming it; DELETE /findings and POST /reset forget them.
func TestFindingsAreReadFilteredAndCleared(t *testing.T) {
	r := newRig(t, "")
	for _, path := range []string{"/api/events/1", "/api/events?size=3"} {
		req, _ := http.NewRequest(http.MethodGet, r.public+path, nil)
		do(t, req)
	}
	status, body := r.call(t, http.MethodGet, "/findings", "")
	findings, _ := body["findings"].([]any)
	if status != http.StatusOK || len(findings) != 2 {
		t.Fatalf("GET /findings = %d %s", status, mustJSON(t, body))
	}
	if _, body := r.call(t, http.MethodGet, "/findings?rule=API-1&since=1", ""); len(body["findings"].([]any)) != 1 {
		t.Errorf("rule and since pick %s", mustJSON(t, body))
	}
	for query, says := range map[string]string{
		"?rule=api":                  `rule "api"`,
		"?since=yesterday":           `since "yesterday"`,
		"?limit=1":                   `unknown parameter "limit"`,
		"?rule=API-1&rule=API-2":     `"rule" is given 2 times`,
		"?since=2026-01-02T00:00:00": `since "2026-01-02T00:00:00"`,
	} {
		status, body := r.call(t, http.MethodGet, "/findings"+query, "")
		if desc, _ := body["error_description"].(string); status != http.StatusBadRequest || !strings.Contains(desc, says) {
			t.Errorf("GET /findings%s = %d %q, want 400 saying %s", query, status, desc, says)
		}
	}
	if status, body := r.call(t, http.MethodDelete, "/findings", ""); status != http.StatusOK || body["cleared"] != 2.0 {
		t.Errorf("DELETE /findings = %d %s", status, mustJSON(t, body))
	}
	req, _ := http.NewRequest(http.MethodGet, r.public+"/api/nothing", nil)
	do(t, req)
	r.call(t, http.MethodPost, "/reset", "")
	if _, body := r.call(t, http.MethodGet, "/findings", ""); len(body["findings"].([]any)) != 0 {
		t.Errorf("POST /reset left findings: %s", mustJSON(t, body))
	}
}
