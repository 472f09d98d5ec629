package conformance

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"eventsvc/steps"
)

// ErrPreflight is wrapped by the errors of Preflight.
var ErrPreflight = errors.New("preflight")

// preflightTimeout bounds each request of Preflight.
const preflightTimeout = 15 * time.Second

// Preflight checks, before any scenario runs, that a remote target answers
// and takes the run's credentials, so that a wrong address or wrong
// credentials give one clear line instead of a page of step failures. Its
// messages hold no secret. It returns the target, with
// Credentials.BasicAsIs set when the target takes the client credentials
// only as they are, not form-encoded (RFC 6749 §2.3.1).
func Preflight(target steps.Target) (steps.Target, error) {
	if target.BaseURL == "" {
		return target, nil
	}
	err := preflight(target)
	c := target.Credentials
	encodingChanges := url.QueryEscape(c.ClientID) != c.ClientID || url.QueryEscape(c.ClientSecret) != c.ClientSecret
	if err != nil && encodingChanges && !c.BasicAsIs {
		asIs := target
		asIs.Credentials.BasicAsIs = true
		if preflight(asIs) == nil {
			return asIs, nil
		}
	}
	return target, err
}

func preflight(target steps.Target) error {
	client := &http.Client{Timeout: preflightTimeout}
	resp, err := client.Get(target.BaseURL + "/api")
	if err != nil {
		var uerr *url.Error
		if errors.As(err, &uerr) {
			err = uerr.Err
		}
		return fmt.Errorf("%w: cannot reach %s: %v", ErrPreflight, target.BaseURL, err)
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()

	c := target.Credentials
	for _, who := range []struct{ name, user, pass, vars string }{
		{"user", c.Username, c.Password, "CONFORMANCE_USERNAME / CONFORMANCE_PASSWORD"},
		{"other user", c.OtherUsername, c.OtherPass, "CONFORMANCE_OTHER_USERNAME / CONFORMANCE_OTHER_PASSWORD"},
	} {
		form := url.Values{"grant_type": {"password"}, "username": {who.user}, "password": {who.pass}}
		req, err := http.NewRequest(http.MethodPost, target.BaseURL+"/oauth/token", strings.NewReader(form.Encode()))
		if err != nil {
			return fmt.Errorf("%w: %v", ErrPreflight, err)
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if c.BasicAsIs {
			req.SetBasicAuth(c.ClientID, c.ClientSecret)
		} else {
			req.SetBasicAuth(url.QueryEscape(c.ClientID), url.QueryEscape(c.ClientSecret))
		}
		resp, err := client.Do(req)
		if err != nil {
			return fmt.Errorf("%w: cannot reach the token endpoint of %s: %v", ErrPreflight, target.BaseURL, err)
		}
		var body struct {
			AccessToken string `json:"access_token"`
			Error       string `json:"error"`
		}
		_ = json.NewDecoder(io.LimitReader(resp.Body, 1<<20)).Decode(&body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || body.AccessToken == "" {
			detail := fmt.Sprintf("status %d", resp.StatusCode)
			if body.Error != "" {
				detail += fmt.Sprintf(", error %q", body.Error)
			}
			return fmt.Errorf("%w: %s refused the %s's password grant (%s): check CONFORMANCE_CLIENT_ID / CONFORMANCE_CLIENT_SECRET and %s",
				ErrPreflight, target.BaseURL, who.name, detail, who.vars)
		}
	}
	return nil
}
