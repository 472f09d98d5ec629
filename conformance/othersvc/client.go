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
//
// It keeps the first error of its requests, or of what was expected of
// their answers, as bufio.Scanner does: after it, requests are not sent
// and their answers are empty, and Err returns it. Its methods may be
// called at once from several goroutines.
type Client struct {
	base  string
	Creds target.Credentials
	clock *Clock // the server's
	http  *http.Client
	mu    sync.Mutex
	first error // the first error, guarded by mu
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

// Err is the client's first error: of a request that could not be
// sent, or of an answer that was not what was expected of it; nil while
// there is none.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.first
}

// fail keeps err as the client's error, unless it has one already.
func (c *Client) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.first == nil {
		c.first = err
	}
}

// failIf keeps the error that format and args say as the client's
// error when bad holds, unless it has one already.
func (c *Client) failIf(bad bool, format string, args ...any) {
	if bad {
		c.fail(fmt.Errorf(format, args...))
	}
}

// errorIf is the end of a bug report's or a variant's shows function:
// the client's first error, or, when there is none and bad holds, the
// error that format and args say; nil otherwise.
func (c *Client) errorIf(bad bool, format string, args ...any) error {
	c.failIf(bad, format, args...)
	return c.Err()
}

// send sends a request to target, a path and query of the server written
// as it is to be sent, or an address; header holds names and values in
// turn. After the client's first error it sends nothing, and the answer
// is empty.
func (c *Client) send(method, target, body string, header ...string) *Answer {
	if c.Err() != nil {
		return &Answer{}
	}
	a, err := c.exchange(method, target, body, header...)
	if err != nil {
		c.fail(err)
		return &Answer{}
	}
	return a
}

// exchange sends a request as send does, whatever the client's error.
func (c *Client) exchange(method, target, body string, header ...string) (*Answer, error) {
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
func (c *Client) tokenRequest(form url.Values) *Answer {
	return c.send(http.MethodPost, "/oauth/token", form.Encode(),
		"Content-Type", "application/x-www-form-urlencoded",
		"Authorization", "Basic "+basic(c.Creds.ClientID, c.Creds.ClientSecret))
}

// login returns the access and refresh tokens of a password grant; a
// grant that gives no token is an error.
func (c *Client) login(user, password string) (access, refresh string) {
	a := c.tokenRequest(url.Values{"grant_type": {"password"}, "username": {user}, "password": {password}})
	access, refresh = a.text("access_token"), a.text("refresh_token")
	c.failIf(a.status != http.StatusOK || access == "", "the password grant of %s answered %d without a token", user, a.status)
	return access, refresh
}

// user logs the user in and returns the access token.
func (c *Client) user() string {
	access, _ := c.login(c.Creds.Username, c.Creds.Password)
	return access
}

// other logs the other user in and returns the access token.
func (c *Client) other() string {
	access, _ := c.login(c.Creds.OtherUsername, c.Creds.OtherPass)
	return access
}

// refreshToken logs the user in and returns the refresh token.
func (c *Client) refreshToken() string {
	_, refresh := c.login(c.Creds.Username, c.Creds.Password)
	return refresh
}

// refresh asks for a refresh with the refresh token.
func (c *Client) refresh(token string) *Answer {
	return c.tokenRequest(url.Values{"grant_type": {"refresh_token"}, "token": {token}})
}

// create creates an event named name with the access token, and returns
// the answer; a creation that is refused is an error.
func (c *Client) create(access, name string) *Answer {
	a := c.post(access, otherEventJSON(name, "Room 4"))
	c.failIf(a.status < 200 || a.status > 299, "creating %q answered %d", name, a.status)
	return a
}

// update puts the event named name in room at address, with the access
// token: the answer, whatever its status.
func (c *Client) update(access, address, name, room string) *Answer {
	return c.send(http.MethodPut, address, otherEventJSON(name, room), asJSON(bearer(access)...)...)
}

// createdThenUpdated logs the user in, creates an event named "Before"
// and updates it, through its "self" link, to "After" in room: the
// creation's answer and the update's.
func (c *Client) createdThenUpdated(room string) (created, put *Answer) {
	token, created := c.userCreated("Before")
	return created, c.update(token, created.link("self"), "After", room)
}

// userCreated logs the user in and creates an event named name: the
// access token and the creation's answer.
func (c *Client) userCreated(name string) (token string, created *Answer) {
	token = c.user()
	return token, c.create(token, name)
}

// readBack logs the user in, creates an event named name and reads it
// anonymously through the "self" link of the creation's answer.
func (c *Client) readBack(name string) *Answer {
	_, created := c.userCreated(name)
	return c.read(created.link("self"))
}

// userPosts logs the user in and posts body, JSON, to the list with the
// access token: the answer, whatever its status.
func (c *Client) userPosts(body string) *Answer {
	return c.post(c.user(), body)
}

// post posts body, JSON, to the list with the access token.
func (c *Client) post(access, body string) *Answer {
	return c.send(http.MethodPost, "/api/events", body, asJSON(bearer(access)...)...)
}

// otherEventJSON is an event body the second implementation takes.
func otherEventJSON(name, venue string) string {
	b, _ := json.Marshal(map[string]string{"name": name, "startsAt": "2026-11-25T10:00:00+01:00", "venue": venue})
	return string(b)
}

// read reads the event at address anonymously, and requires a 200.
func (c *Client) read(address string, header ...string) *Answer {
	a := c.send(http.MethodGet, address, "", header...)
	c.failIf(a.status != http.StatusOK, "GET %s answered %d", address, a.status)
	return a
}

// pages are the pages of the list from address on, read anonymously
// following "next", a hundred at most; the first is there even when it
// could not be read.
func (c *Client) pages(address string) []*Answer {
	var out []*Answer
	for address != "" && len(out) < 100 {
		a := c.read(address)
		out = append(out, a)
		address = a.link("next")
	}
	return out
}

// names are the names of every event the list holds, read anonymously
// page by page.
func (c *Client) names() []string {
	var out []string
	for _, page := range c.pages(c.base + "/api/events?per_page=50") {
		for _, item := range page.items() {
			out = append(out, fmt.Sprint(item["name"]))
		}
	}
	return out
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
