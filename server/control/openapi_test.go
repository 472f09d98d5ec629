package control

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestTheControlAPIServesItsOpenAPIDocument: GET /openapi.json is the
// document, and the document tells a wrong answer from a right one (the
// tests check every answer of the control API against it, in rig.call).
func TestTheControlAPIServesItsOpenAPIDocument(t *testing.T) {
	r := newRig(t, "")
	resp, err := http.Get(r.control + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !bytes.Equal(b, Document()) {
		t.Fatalf("GET /openapi.json = %d, %d bytes", resp.StatusCode, len(b))
	}
	c := controlContract(t)
	req := httptest.NewRequest(http.MethodGet, "/clock", nil)
	json := http.Header{"Content-Type": {"application/json"}}
	if err := c.CheckAnswer(req, 200, json, []byte(`{"now": "2026-11-24T10:00:00Z", "moved": "0s", "movedSeconds": 0}`)); err != nil {
		t.Fatalf("a right clock: %v", err)
	}
	if err := c.CheckAnswer(req, 200, json, []byte(`{"now": 5, "moved": "0s"}`)); err == nil {
		t.Fatal("the document takes a clock whose now is a number, without movedSeconds")
	}
	add := httptest.NewRequest(http.MethodPost, "/faults", nil)
	if err := c.CheckAnswer(add, 201, json, []byte(`{"path": "/api", "fraction": 1, "hits": 0}`)); err == nil {
		t.Fatal("the document takes a created rule without its id")
	}
}

// TestAWrongMethodIsAnswered405WithAllow: every path of the control API
// names the methods it takes when it is sent another; an unknown path is
// still 404.
func TestAWrongMethodIsAnswered405WithAllow(t *testing.T) {
	r := newRig(t, "")
	for _, c := range []struct{ method, path, allow string }{
		{http.MethodGet, "/reset", "POST"},
		{http.MethodPost, "/tokens", "GET, HEAD"},
		{http.MethodPut, "/journal", "GET, HEAD, DELETE"},
		{http.MethodGet, "/faults/3", "DELETE"},
		{http.MethodPatch, "/clock", "GET, HEAD, POST"},
	} {
		req, _ := http.NewRequest(c.method, r.control+c.path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusMethodNotAllowed || resp.Header.Get("Allow") != c.allow || !strings.Contains(string(b), c.allow) {
			t.Errorf("%s %s = %d, Allow %q, %s; want 405, Allow %q", c.method, c.path, resp.StatusCode, resp.Header.Get("Allow"), b, c.allow)
		}
	}
	if status, _ := r.call(t, http.MethodGet, "/nothing-here", ""); status != http.StatusNotFound {
		t.Errorf("an unknown path = %d, want 404", status)
	}
}
