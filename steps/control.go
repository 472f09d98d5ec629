package steps

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/cucumber/godog"
)

// controlTimeout bounds a request to the control API.
const controlTimeout = 10 * time.Second

// registerControl teaches the scenario's redactor the control API's token,
// so that no message or report shows it.
func (s *scenario) registerControl(sc stepRegistry) {
	sc.Before(func(ctx context.Context, _ *godog.Scenario) (context.Context, error) {
		if s.target.ControlToken != "" {
			s.learn(s.target.ControlToken)
		}
		return ctx, nil
	})
}

// advanceClock moves the clock of an out-of-process reference server
// forward by d, through its control API (POST /clock, docs/control-api.md).
func (s *scenario) advanceClock(d time.Duration) error {
	url := strings.TrimRight(s.target.ControlURL, "/") + "/clock"
	req, err := http.NewRequest(http.MethodPost, url, strings.NewReader(fmt.Sprintf(`{"advance": %q}`, d.String())))
	if err != nil {
		return fmt.Errorf("the control API's address %q: %w", s.target.ControlURL, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if s.target.ControlToken != "" {
		req.Header.Set("Authorization", "Bearer "+s.target.ControlToken)
	}
	// Not the scenario's client: this request is no answer of the target's
	// API, and must not stand in for the last one. One connection for it
	// alone, closed after it: no connection the run dialed and never used
	// keeps the control API's server from shutting down (a server that
	// waits for the first request of each connection it accepted).
	transport := &http.Transport{DisableKeepAlives: true}
	defer transport.CloseIdleConnections()
	resp, err := (&http.Client{Timeout: controlTimeout, Transport: transport}).Do(req)
	if err != nil {
		return fmt.Errorf("%s", s.redactor.String(fmt.Sprintf("move the clock through the control API at %s: %v", s.target.ControlURL, err)))
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s", s.redactor.String(fmt.Sprintf("move the clock through the control API at %s: status %d: %s", s.target.ControlURL, resp.StatusCode, body)))
	}
	return nil
}
