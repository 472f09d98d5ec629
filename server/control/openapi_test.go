package control

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"eventsvc/conformance/contract"
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

// TestEveryOperationDocumentsTheRefusalsItGets: the refusals of the
// control API's app-wide checks reach every operation, and each
// operation's responses in the OpenAPI document name them: 403 for a
// request a web page sent, 401 without the control token and 429 once
// an address is locked out, 415 for a write whose body is not JSON.
// Each answer is checked against the document too (rig.call).
func TestEveryOperationDocumentsTheRefusalsItGets(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			Responses map[string]any `json:"responses"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(Document(), &doc); err != nil {
		t.Fatal(err)
	}
	concrete := strings.NewReplacer("{email}", "user@email.com", "{id}", "1")
	type operation struct{ method, path, concrete string }
	var ops []operation
	for path, methods := range doc.Paths {
		for method := range methods {
			ops = append(ops, operation{strings.ToUpper(method), path, concrete.Replace(path)})
		}
	}
	if len(ops) < 20 {
		t.Fatalf("only %d operations in the document", len(ops))
	}
	documents := func(op operation, status int) bool {
		_, ok := doc.Paths[op.path][strings.ToLower(op.method)].Responses[strconv.Itoa(status)]
		return ok
	}
	send := func(r *rig, op operation, header map[string]string, body string) int {
		t.Helper()
		req, _ := http.NewRequest(op.method, r.control+op.concrete, strings.NewReader(body))
		for k, v := range header {
			req.Header.Set(k, v)
		}
		status, _ := checkedDo(t, req)
		return status
	}

	open := newRig(t, "")
	guarded := newRig(t, "a-control-token-of-the-test")
	for i, op := range ops {
		for _, status := range []int{http.StatusUnauthorized, http.StatusForbidden, http.StatusTooManyRequests} {
			if !documents(op, status) {
				t.Errorf("%s %s does not document %d", op.method, op.path, status)
			}
		}
		if got := send(open, op, map[string]string{"Origin": "http://page.example"}, ""); got != http.StatusForbidden {
			t.Errorf("%s %s from a web page = %d, want 403", op.method, op.path, got)
		}
		// With a wrong token, a new one each time: 401, until the
		// address is locked out, then 429.
		if got := send(guarded, op, map[string]string{"Authorization": "Bearer wrong-" + strconv.Itoa(i)}, ""); got != http.StatusUnauthorized && got != http.StatusTooManyRequests {
			t.Errorf("%s %s with a wrong control token = %d, want 401 or 429", op.method, op.path, got)
		}
		if got := send(guarded, op, nil, ""); got != http.StatusUnauthorized && got != http.StatusTooManyRequests {
			t.Errorf("%s %s without the control token = %d, want 401 or 429", op.method, op.path, got)
		}
		if op.method == http.MethodGet {
			continue
		}
		if !documents(op, http.StatusUnsupportedMediaType) {
			t.Errorf("%s %s does not document 415", op.method, op.path)
		}
		if got := send(open, op, map[string]string{"Content-Type": "text/plain"}, "x"); got != http.StatusUnsupportedMediaType {
			t.Errorf("%s %s with a text body = %d, want 415", op.method, op.path, got)
		}
	}
	if got := send(guarded, operation{http.MethodGet, "/", "/"}, map[string]string{"Authorization": "Bearer a-control-token-of-the-test"}, ""); got != http.StatusTooManyRequests {
		t.Errorf("GET / with the token after %d failures = %d, want 429", len(ops), got)
	}
}

// checkedDo does req, a request to the control API, checks its answer
// against the control API's OpenAPI document, and returns its status and
// body.
func checkedDo(t *testing.T, req *http.Request) (int, []byte) {
	t.Helper()
	resp, b := fetch(t, req)
	if err := controlContract(t).CheckAnswer(req, resp.StatusCode, resp.Header, b); err != nil {
		t.Errorf("%s %s: the control API's answer breaks its OpenAPI document: %v", req.Method, req.URL.Path, err)
	}
	return resp.StatusCode, b
}

// loadControlContract loads the control API's OpenAPI document, once.
var loadControlContract = sync.OnceValues(func() (*contract.Contract, error) {
	return contract.LoadWith(Document(), "Error")
})

// controlContract is the control API's OpenAPI document.
func controlContract(t *testing.T) *contract.Contract {
	t.Helper()
	c, err := loadControlContract()
	if err != nil {
		t.Fatal(err)
	}
	return c
}
