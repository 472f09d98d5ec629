package journal

import (
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"eventsvc/server/clock"
	"eventsvc/server/fault"
)

const (
	aToken  = "Zm9vYmFyYmF6cXV4cXV1eGNvcmdlZ3JhdWx0Z2FycGx5"
	another = "d2FsZG9mcmVkcGx1Z2h4eXp6eXpwbHVnaHRoZXVkZG9y"
)

// serve runs a Fiber app with the journal and fault handlers in front of
// two routes on a loopback port until the test ends.
func serve(t *testing.T, j *Journal, set *fault.Set) string {
	t.Helper()
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Use(Handler(j))
	app.Use(fault.Handler(set))
	app.Post("/oauth/token", func(c *fiber.Ctx) error {
		return c.JSON(fiber.Map{"access_token": aToken, "refresh_token": another, "expires_in": 600})
	})
	app.Get("/api/events", func(c *fiber.Ctx) error { return c.JSON(fiber.Map{"page": 0}) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln)
	t.Cleanup(func() { _ = app.Shutdown() })
	return "http://" + ln.Addr().String()
}

func TestHandlerRecordsExchangesMasked(t *testing.T) {
	j := New(10, clock.System{})
	set := fault.NewSet(func() float64 { return 0 })
	base := serve(t, j, set)

	req, _ := http.NewRequest(http.MethodPost, base+"/oauth/token", strings.NewReader(url.Values{
		"grant_type": {"password"}, "username": {"user@email.com"}, "password": {"hunter2-secret"},
	}.Encode()))
	req.SetBasicAuth("myApp", "client-secret")
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()

	req, _ = http.NewRequest(http.MethodGet, base+"/api/events?page=0&access_token="+aToken, nil)
	req.Header.Set("Authorization", "Bearer "+aToken)
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()

	set.Add(fault.Rule{Path: "/api/events", Answer: fault.Answer{Status: 503}, Fraction: 1})
	resp, err = http.Get(base + "/api/events")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	set.Clear()
	set.Add(fault.Rule{Path: "/api/events", Answer: fault.Answer{Drop: true}, Fraction: 1})
	if _, err := (&http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}).Get(base + "/api/events"); err == nil {
		t.Fatal("the dropped request got an answer")
	}

	entries := j.Last(0)
	if len(entries) != 4 {
		t.Fatalf("journal holds %d entries, want 4: %+v", len(entries), entries)
	}
	token, list, faulted, dropped := entries[0], entries[1], entries[2], entries[3]
	if token.Method != "POST" || token.Path != "/oauth/token" || token.Status != 200 || !strings.Contains(token.Request.Body, "grant_type=password") || !strings.Contains(token.Response.Body, "expires_in") {
		t.Errorf("token entry: %+v", token)
	}
	if list.Query == "" || !strings.Contains(list.Query, "page=0") || list.Status != 200 {
		t.Errorf("list entry: %+v", list)
	}
	if faulted.Status != 503 || faulted.Fault != 1 || !strings.Contains(faulted.Response.Body, "injected_fault") {
		t.Errorf("faulted entry: %+v", faulted)
	}
	if !dropped.Dropped || dropped.Status != 0 || dropped.Fault != 2 {
		t.Errorf("dropped entry: %+v", dropped)
	}
	for _, e := range entries {
		all := e.Query + e.Request.Body + e.Response.Body
		for _, h := range []http.Header{e.Request.Headers, e.Response.Headers} {
			for k, vs := range h {
				all += k + ": " + strings.Join(vs, ",") + "\n"
			}
		}
		for _, secret := range []string{aToken, another, "hunter2-secret", "client-secret", "bXlBcHA6Y2xpZW50LXNlY3JldA"} {
			if strings.Contains(all, secret) {
				t.Errorf("entry %d holds a secret %q: %s", e.ID, secret, all)
			}
		}
	}
}
