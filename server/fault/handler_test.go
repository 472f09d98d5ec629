package fault

import (
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"syscall"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
)

// serve runs a Fiber app with the fault handler in front of one route on a
// loopback port until the test ends.
func serve(t *testing.T, set *Set) string {
	t.Helper()
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Use(Handler(set))
	app.Get("/api/events", func(c *fiber.Ctx) error {
		applied, _ := c.Locals(AppliedKey).(Rule)
		return c.JSON(fiber.Map{"real": true, "rule": applied.ID})
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Listener(ln)
	t.Cleanup(func() { _ = app.Shutdown() })
	return "http://" + ln.Addr().String()
}

func get(t *testing.T, client *http.Client, url string) (*http.Response, map[string]any, error) {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	var body map[string]any
	b, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(b, &body); err != nil {
		t.Fatalf("body %q: %v", b, err)
	}
	return resp, body, nil
}

func TestHandlerAnswersTheInjectedStatus(t *testing.T) {
	set := NewSet(func() float64 { return 0 })
	base := serve(t, set)
	r, _ := set.Add(Rule{Method: "GET", Path: "/api/events", Answer: Answer{Status: 503}, Fraction: 1})
	resp, body, err := get(t, http.DefaultClient, base+"/api/events")
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 503 || body["error"] != "injected_fault" {
		t.Fatalf("status %d, body %v", resp.StatusCode, body)
	}
	set.Remove(r.ID)
	if resp, body, err := get(t, http.DefaultClient, base+"/api/events"); err != nil || resp.StatusCode != 200 || body["real"] != true {
		t.Fatalf("after Remove: %v, %v", body, err)
	}
}

func TestHandlerDelaysAndThenAnswersForReal(t *testing.T) {
	set := NewSet(func() float64 { return 0 })
	base := serve(t, set)
	r, _ := set.Add(Rule{Path: "/api/**", Answer: Answer{Latency: Duration(2 * time.Second)}, Fraction: 1})
	impatient := &http.Client{Timeout: 200 * time.Millisecond}
	if _, _, err := get(t, impatient, base+"/api/events"); err == nil {
		t.Fatal("a client that waits 200 ms got an answer delayed by 2 s")
	}
	set.Clear()
	set.Add(Rule{Path: "/api/**", Answer: Answer{Latency: Duration(50 * time.Millisecond)}, Fraction: 1})
	resp, body, err := get(t, http.DefaultClient, base+"/api/events")
	if err != nil || resp.StatusCode != 200 || body["real"] != true || body["rule"] != float64(r.ID+1) {
		t.Fatalf("delayed answer: %v, %v", body, err)
	}
}

func TestHandlerDropsTheConnection(t *testing.T) {
	set := NewSet(func() float64 { return 0 })
	base := serve(t, set)
	set.Add(Rule{Path: "/api/events", Answer: Answer{Drop: true}, Fraction: 1})
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	_, _, err := get(t, client, base+"/api/events")
	if err == nil {
		t.Fatal("a dropped connection gave an answer")
	}
	if !errors.Is(err, syscall.ECONNRESET) {
		t.Fatalf("err = %v, want the connection reset", err)
	}
}
