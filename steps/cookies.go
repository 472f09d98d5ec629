package steps

import (
	"net/http"
	"net/url"
	"sync/atomic"
)

// cookies is a scenario's cookie jar: it keeps every cookie the target's
// answers set, and sends them only with the requests a step says carry
// them ("with every cookie received so far"). A client of this API needs
// none (spec SVC-4), and a cookie sent unasked would let a target's
// session stand in for a token in a scenario about something else, which
// would then blame the wrong rule. To another origin than the target's
// they never go: the scenario's origin.Guard strips them.
type cookies struct {
	jar  http.CookieJar
	send atomic.Bool
}

// SetCookies implements http.CookieJar: every cookie is kept.
func (c *cookies) SetCookies(u *url.URL, cs []*http.Cookie) { c.jar.SetCookies(u, cs) }

// Cookies implements http.CookieJar: none, unless a step sends them.
func (c *cookies) Cookies(u *url.URL) []*http.Cookie {
	if !c.send.Load() {
		return nil
	}
	return c.jar.Cookies(u)
}

// withCookies runs send with the cookies received so far on every request.
func (c *cookies) withCookies(send func() error) error {
	c.send.Store(true)
	defer c.send.Store(false)
	return send()
}
