package othersvc

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"eventsvc/conformance/target"
)

// Client does what a user of the second implementation does, request
// by request, so that a bug report (bugreports.go) can show what its
// user saw. It sends paths as they are written: dot segments, double
// slashes and percent-encoded letters reach the server unchanged.
type Client struct {
	base  string
	Creds target.Credentials
	clock *Clock // the server's
	http  *http.Client
}

// Answer is an answer to an Client.
type Answer struct {
	status int
	header http.Header
	body   string
	doc    map[string]any // the body, when it is a JSON object
	url    *url.URL       // the address it answers
}

// Clock is the second implementation's clock: the real time, moved
// forward by Add.
type Clock struct {
	mu    sync.Mutex
	ahead time.Duration
}

// Now is the clock's time.
func (c *Clock) Now() time.Time {
	if c == nil {
		return time.Now()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return time.Now().Add(c.ahead)
}

// Add moves the clock forward by d.
func (c *Clock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ahead += d
}

// NewClient starts a second implementation configured with c, on a
// clock of its own, and returns a client of it.
func NewClient(t testing.TB, c Config) *Client {
	t.Helper()
	if c.Clock == nil {
		c.Clock = &Clock{}
	}
	creds := c.Creds
	if creds == (target.Credentials{}) {
		creds = Creds
	}
	srv := Start(t, c)
	return &Client{base: srv.URL, Creds: creds, clock: c.Clock, http: &http.Client{Timeout: 10 * time.Second}}
}

// send sends a request to target, a path and query of the server written
// as it is to be sent, or an address; header holds names and values in
// turn.
func (c *Client) send(method, target, body string, header ...string) (*Answer, error) {
	address := target
	if strings.HasPrefix(target, "/") {
		address = c.base + target
	}
	req, err := http.NewRequest(method, address, strings.NewReader(body))
	if err != nil {
		return nil, err
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Add(header[i], header[i+1])
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", method, target, err)
	}
	a := &Answer{status: resp.StatusCode, header: resp.Header, body: string(b), url: req.URL}
	_ = json.Unmarshal(b, &a.doc)
	return a, nil
}

// bearer is the header of an access token.
func bearer(token string) []string { return []string{"Authorization", "Bearer " + token} }

// asJSON is the header of a JSON body, with more headers.
func asJSON(header ...string) []string {
	return append([]string{"Content-Type", "application/json"}, header...)
}

// tokenRequest asks the token endpoint, as the client, with the form.
func (c *Client) tokenRequest(form url.Values) (*Answer, error) {
	return c.send(http.MethodPost, "/oauth/token", form.Encode(),
		"Content-Type", "application/x-www-form-urlencoded",
		"Authorization", "Basic "+basic(c.Creds.ClientID, c.Creds.ClientSecret))
}

// login returns the access and refresh tokens of a password grant.
func (c *Client) login(user, password string) (access, refresh string, err error) {
	a, err := c.tokenRequest(url.Values{"grant_type": {"password"}, "username": {user}, "password": {password}})
	if err != nil {
		return "", "", err
	}
	access, refresh = a.text("access_token"), a.text("refresh_token")
	if a.status != http.StatusOK || access == "" {
		return "", "", fmt.Errorf("the password grant of %s answered %d without a token", user, a.status)
	}
	return access, refresh, nil
}

// user logs the user in and returns the access token.
func (c *Client) user() (string, error) {
	access, _, err := c.login(c.Creds.Username, c.Creds.Password)
	return access, err
}

// refresh asks for a refresh with the refresh token.
func (c *Client) refresh(token string) (*Answer, error) {
	return c.tokenRequest(url.Values{"grant_type": {"refresh_token"}, "token": {token}})
}

// create creates an event named name with the access token, and returns
// the answer; a creation that is refused is an error.
func (c *Client) create(access, name string) (*Answer, error) {
	a, err := c.post(access, otherEventJSON(name, "Room 4"))
	if err == nil && (a.status < 200 || a.status > 299) {
		err = fmt.Errorf("creating %q answered %d", name, a.status)
	}
	return a, err
}

// createdThenUpdated logs the user in, creates an event named "Before"
// and updates it, through its "self" link, to "After" in room: the
// creation's answer and the update's.
func (c *Client) createdThenUpdated(room string) (created, put *Answer, err error) {
	token, created, err := c.userCreated("Before")
	if err != nil {
		return nil, nil, err
	}
	put, err = c.send(http.MethodPut, created.link("self"), otherEventJSON("After", room), asJSON(bearer(token)...)...)
	return created, put, err
}

// userCreated logs the user in and creates an event named name: the
// access token and the creation's answer.
func (c *Client) userCreated(name string) (token string, created *Answer, err error) {
	if token, err = c.user(); err != nil {
		return "", nil, err
	}
	created, err = c.create(token, name)
	return token, created, err
}

// readBack logs the user in, creates an event named name and reads it
// anonymously through the "self" link of the creation's answer.
func (c *Client) readBack(name string) (*Answer, error) {
	_, created, err := c.userCreated(name)
	if err != nil {
		return nil, err
	}
	return c.read(created.link("self"))
}

// userPosts logs the user in and posts body, JSON, to the list with the
// access token: the answer, whatever its status.
func (c *Client) userPosts(body string) (*Answer, error) {
	token, err := c.user()
	if err != nil {
		return nil, err
	}
	return c.post(token, body)
}

// post posts body, JSON, to the list with the access token.
func (c *Client) post(access, body string) (*Answer, error) {
	return c.send(http.MethodPost, "/api/events", body, asJSON(bearer(access)...)...)
}

// otherEventJSON is an event body the second implementation takes.
func otherEventJSON(name, venue string) string {
	b, _ := json.Marshal(map[string]string{"name": name, "startsAt": "2026-11-25T10:00:00+01:00", "venue": venue})
	return string(b)
}

// read reads the event at address anonymously, and requires a 200.
func (c *Client) read(address string, header ...string) (*Answer, error) {
	a, err := c.send(http.MethodGet, address, "", header...)
	if err == nil && a.status != http.StatusOK {
		err = fmt.Errorf("GET %s answered %d", address, a.status)
	}
	return a, err
}

// names are the names of every event the list holds, read anonymously
// page by page.
func (c *Client) names() ([]string, error) {
	var out []string
	for address := c.base + "/api/events?per_page=50"; address != ""; {
		a, err := c.read(address)
		if err != nil {
			return nil, err
		}
		for _, item := range a.items() {
			out = append(out, fmt.Sprint(item["name"]))
		}
		address = a.link("next")
	}
	return out, nil
}

// text is the string at key of the answer's JSON object.
func (a *Answer) text(key string) string {
	s, _ := a.doc[key].(string)
	return s
}

// link is the href of the relation, resolved against the answer's
// address, or "".
func (a *Answer) link(rel string) string {
	return resolveLink(a.url, a.doc, rel)
}

// resolveLink is the href of rel in doc's links, resolved against base.
func resolveLink(base *url.URL, doc map[string]any, rel string) string {
	links, _ := doc["_links"].(map[string]any)
	l, _ := links[rel].(map[string]any)
	href, _ := l["href"].(string)
	if href == "" {
		return ""
	}
	u, err := base.Parse(href)
	if err != nil {
		return ""
	}
	return u.String()
}

// items are the events of a page of the list.
func (a *Answer) items() []map[string]any {
	embedded, _ := a.doc["_embedded"].(map[string]any)
	list, _ := embedded["events"].([]any)
	var out []map[string]any
	for _, v := range list {
		if m, ok := v.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

// basic is the Basic credential of id and secret.
func basic(id, secret string) string {
	return base64.StdEncoding.EncodeToString([]byte(id + ":" + secret))
}
