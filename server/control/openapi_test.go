package control

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"eventsvc/server/journal"
	"eventsvc/server/servertest"
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
	users := httptest.NewRequest(http.MethodGet, "/users", nil)
	if err := c.CheckAnswer(users, 200, json, []byte(`{"users": [{"id": 1, "email": "a@b.c", "roles": ["USER"]}]}`)); err != nil {
		t.Fatalf("a right list of users: %v", err)
	}
	if err := c.CheckAnswer(users, 200, json, []byte(`{"users": [{"id": 1, "email": "a@b.c", "roles": ["USER"], "password": "x"}]}`)); err == nil {
		t.Fatal("the document takes a user that shows a password")
	}
	client := httptest.NewRequest(http.MethodPatch, "/clients/myApp", nil)
	if err := c.CheckAnswer(client, 200, json, []byte(`{"clientId": "myApp", "clientSecret": "x", "authorizedGrantTypes": ["password"], "scopes": ["read"], "resourceIds": ["event"]}`)); err == nil {
		t.Fatal("the document takes a client that shows its secret")
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
		{http.MethodPut, "/users", "GET, HEAD, POST"},
		{http.MethodGet, "/users/user@email.com", "PATCH, DELETE"},
		{http.MethodPut, "/users/user%40email.com", "PATCH, DELETE"},
		{http.MethodDelete, "/clients", "GET, HEAD, POST"},
		{http.MethodPost, "/clients/myApp", "PATCH, DELETE"},
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
	for _, p := range []string{"/nothing-here", "/users/a@b.c/roles", "/clients/myApp/x", "/faults/3/4"} {
		if status, _ := r.call(t, http.MethodGet, p, ""); status != http.StatusNotFound {
			t.Errorf("GET %s = %d, want 404", p, status)
		}
	}
}

// TestEveryRouteIsDocumented: each route of the control API has its
// operation in the OpenAPI document (rig.call checks answers only of the
// paths the document has).
func TestEveryRouteIsDocumented(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(Document(), &doc); err != nil {
		t.Fatal(err)
	}
	cfg := servertest.DemoConfig(t)
	c := New(Options{Accounts: cfg.Accounts, Clients: cfg.Clients})
	n := 0
	for _, route := range c.App().GetRoutes(true) {
		if route.Method == http.MethodHead {
			continue
		}
		segs := strings.Split(route.Path, "/")
		for i, s := range segs {
			if strings.HasPrefix(s, ":") {
				segs[i] = "{" + s[1:] + "}"
			}
		}
		path := strings.Join(segs, "/")
		if _, ok := doc.Paths[path][strings.ToLower(route.Method)]; !ok {
			t.Errorf("%s %s is not in openapi.json", route.Method, path)
		}
		n++
	}
	if n < 20 {
		t.Fatalf("only %d routes found", n)
	}
}

// TestTheJournalFiltersAreDocumented: every filter the journal reads is
// a parameter of GET /journal and GET /journal/count in the OpenAPI
// document.
func TestTheJournalFiltersAreDocumented(t *testing.T) {
	var doc struct {
		Paths      map[string]map[string]struct{ Parameters []map[string]any } `json:"paths"`
		Components struct {
			Parameters map[string]struct{ Name, In string } `json:"parameters"`
		} `json:"components"`
	}
	if err := json.Unmarshal(Document(), &doc); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/journal", "/journal/count"} {
		documented := map[string]bool{}
		for _, p := range doc.Paths[path]["get"].Parameters {
			name, _ := p["name"].(string)
			ref, _ := p["$ref"].(string)
			if ref, ok := strings.CutPrefix(ref, "#/components/parameters/"); ok {
				if c, ok := doc.Components.Parameters[ref]; ok && c.In == "query" {
					documented[c.Name] = true
				}
				continue
			}
			if p["in"] == "query" {
				documented[name] = true
			}
		}
		for _, name := range journal.FilterParams {
			if !documented[name] {
				t.Errorf("GET %s: the filter %q is not a query parameter in openapi.json", path, name)
			}
		}
	}
}
