package contract_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"eventsvc/conformance/contract"
	"eventsvc/server"
	"eventsvc/server/event"
	"eventsvc/server/servertest"
)

// checker sends requests to a reference server and checks every answer
// against the OpenAPI document.
type checker struct {
	t        *testing.T
	base     string
	contract *contract.Contract
	checked  map[string]bool // "METHOD path-template status"
}

func (c *checker) send(method, path, token, contentType, body string, basic ...string) (int, map[string]any) {
	c.t.Helper()
	req, err := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if err != nil {
		c.t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if len(basic) == 2 {
		req.SetBasicAuth(basic[0], basic[1])
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if err := c.contract.CheckAnswer(req, resp.StatusCode, resp.Header, b); err != nil {
		c.t.Errorf("%v\nbody: %.600s", err, b)
	}
	c.checked[method+" "+resp.Status] = true
	var v map[string]any
	_ = json.Unmarshal(b, &v)
	return resp.StatusCode, v
}

func (c *checker) token(username, password, scope string) (int, map[string]any) {
	form := url.Values{"grant_type": {"password"}, "username": {username}, "password": {password}}
	if scope != "" {
		form.Set("scope", scope)
	}
	return c.send("POST", "/oauth/token", "", "application/x-www-form-urlencoded", form.Encode(), "myApp", "pass")
}

const goodEvent = `{"name": "Contract", "description": "Checked", "beginEnrollmentDateTime": "2026-11-01T09:00",
 "closeEnrollmentDateTime": "2026-11-10T17:00:00", "beginEventDateTime": "2026-11-20T18:00:00.5",
 "endEventDateTime": "2026-11-20T20:00:00", "location": "Room 7", "basePrice": 10, "maxPrice": 20}`

// TestTheReferenceServerAnswersAsTheDocumentSays drives a real reference
// server through every operation of the document, and its errors, and
// checks each answer against the document.
func TestTheReferenceServerAnswersAsTheDocumentSays(t *testing.T) {
	ct, err := contract.Default()
	if err != nil {
		t.Fatal(err)
	}
	cfg := servertest.DemoConfig(t)
	events := event.NewMemory()
	events.Replace(event.Demo(5, []int64{1, 2}, time.Now()))
	srv := servertest.New(t, server.New(server.Options{Config: cfg, Events: events, LoginFailures: 2}))
	c := &checker{t: t, base: srv.URL, contract: ct, checked: map[string]bool{}}

	_, tok := c.token("user@email.com", "user", "")
	user, _ := tok["access_token"].(string)
	refresh, _ := tok["refresh_token"].(string)
	_, tok = c.token("admin@email.com", "admin", "")
	admin, _ := tok["access_token"].(string)
	_, tok = c.token("user@email.com", "user", "read")
	readOnly, _ := tok["access_token"].(string)
	form := "application/x-www-form-urlencoded"
	_, tok = c.send("POST", "/oauth/token", "", form, url.Values{"grant_type": {"refresh_token"}, "token": {refresh}}.Encode(), "myApp", "pass")
	user, _ = tok["access_token"].(string) // the refresh revoked the first one
	c.send("POST", "/oauth/token", "", form, "grant_type=password&username=user@email.com&password=user", "myApp", "wrong")
	c.send("POST", "/oauth/token", "", form, "grant_type=client_credentials", "myApp", "pass")
	c.send("POST", "/oauth/token", "", form, "grant_type=password&username=nobody@example.com&password=x1", "myApp", "pass")
	c.send("POST", "/oauth/token", "", form, "grant_type=password&username=nobody@example.com&password=x2", "myApp", "pass")
	c.send("POST", "/oauth/token", "", form, "grant_type=password&username=nobody@example.com&password=x3", "myApp", "pass") // 429
	c.send("GET", "/oauth/token", "", "", "")
	c.send("GET", "/oauth/authorize?response_type=code&client_id=myApp", "", "", "")

	c.send("GET", "/api", "", "", "")
	c.send("GET", "/api", "not-a-token", "", "")
	c.send("GET", "/api/events", "", "", "")
	c.send("GET", "/api/events?page=1&size=2&sort=name,desc", user, "", "")
	c.send("GET", "/api/events?page=9", "", "", "")
	c.send("GET", "/api/events?size=0&page=x", "", "", "")

	status, created := c.send("POST", "/api/events", user, "application/json", goodEvent)
	if status != http.StatusCreated {
		t.Fatalf("create: %d %v", status, created)
	}
	self := strings.TrimPrefix(created["_links"].(map[string]any)["self"].(map[string]any)["href"].(string), srv.URL)
	c.send("POST", "/api/events", "", "application/json", goodEvent)
	c.send("POST", "/api/events", "expired-or-wrong", "application/json", goodEvent)
	c.send("POST", "/api/events", readOnly, "application/json", goodEvent)
	c.send("POST", "/api/events", user, "application/json", `{"name": "", "id": 4, "basePrice": 30, "maxPrice": 20}`)
	c.send("POST", "/api/events", user, "application/json", `[1]`)
	c.send("POST", "/api/events", user, "text/plain", goodEvent)
	c.send("POST", "/api/events", user, "application/json", `{"name": "`+strings.Repeat("x", 1<<20)+`"}`)

	c.send("GET", self, "", "", "")
	c.send("GET", self, user, "", "")
	c.send("GET", "/api/events/999999", "", "", "")
	c.send("GET", "/api/events/abc", "", "", "")
	c.send("PUT", self, user, "application/json", strings.Replace(goodEvent, "Room 7", "", 1))
	c.send("PUT", self, admin, "application/json", goodEvent)
	c.send("PUT", self, "", "application/json", goodEvent)
	c.send("PUT", self, user, "application/json", `{}`)
	c.send("PUT", "/api/events/999999", user, "application/json", goodEvent)
	c.send("PUT", self, user, "text/plain", goodEvent)
	c.send("DELETE", self, user, "", "")

	c.send("GET", "/docs/index.html", "", "", "")
	c.send("GET", "/docs/openapi.json", "", "", "")
	c.send("GET", "/nothing", "", "", "")
	c.send("GET", "/nothing", user, "", "")

	for _, want := range []string{"POST 200 OK", "POST 400 Bad Request", "POST 401 Unauthorized", "POST 429 Too Many Requests", "GET 405 Method Not Allowed",
		"POST 201 Created", "POST 403 Forbidden", "POST 413 Request Entity Too Large", "POST 415 Unsupported Media Type", "GET 404 Not Found",
		"PUT 200 OK", "PUT 403 Forbidden", "PUT 401 Unauthorized", "PUT 400 Bad Request", "PUT 404 Not Found", "DELETE 405 Method Not Allowed"} {
		if !c.checked[want] {
			t.Errorf("no answer %q was checked", want)
		}
	}
}
