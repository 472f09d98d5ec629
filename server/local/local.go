// Package local guards the listeners the reference server opens beside its
// public one, on a developer's machine (the control API, the metrics): a
// web page the developer opens can send them simple cross-site requests
// (a form, a fetch in no-cors mode), and through a DNS name it rebinds to
// 127.0.0.1 it can even read their answers. A Policy refuses what a tool
// or a test would never send and a browser does:
//
//   - a Host header that is not a loopback address or "localhost", unless
//     the listener takes any host (it requires a token, or it is bound to
//     the network on purpose): a rebinding page sends its own name;
//   - an Origin header, or a Sec-Fetch-Site other than "none" (typed in
//     the address bar) or "same-origin"
//     (https://www.w3.org/TR/fetch-metadata/): these come from web pages;
//   - on a write, a Content-Type other than application/json: a page can
//     send text/plain, a form or multipart without asking first, never
//     JSON (https://fetch.spec.whatwg.org/#cors-safelisted-request-header).
//     A body without a Content-Type is refused too (a page sends one from
//     a Blob); a write without a body may leave it out, as curl -X POST
//     does.
//
// Each refusal says what was wrong.
package local

import (
	"encoding/json"
	"fmt"
	"mime"
	"net"
	"net/http"
	"strings"
)

// Policy says what a local listener accepts. The zero value accepts only
// requests addressed to a loopback Host, from no web page, with JSON
// bodies on writes.
type Policy struct {
	// AnyHost accepts any Host header: for a listener that requires a
	// token (a page cannot send it), or that is bound to an address of
	// the network on purpose.
	AnyHost bool
}

// Request is what the Policy looks at in a request: its method, the
// headers as sent (the raw Host header, never one a proxy header stands
// in for), and whether it has a body.
type Request struct {
	Method, Host, Origin, FetchSite, ContentType string
	HasBody                                      bool
}

// Refusal is why a request was refused: its status and a body that says
// what was wrong, {"error": Code, "error_description": Description}.
type Refusal struct {
	Status      int    `json:"-"`
	Code        string `json:"error"`
	Description string `json:"error_description"`
}

func (r *Refusal) Error() string { return r.Code + ": " + r.Description }

// maxShown bounds how much of a header a refusal quotes.
const maxShown = 100

// Check returns why r is refused, or nil when the policy accepts it.
func (p Policy) Check(r Request) *Refusal {
	if !p.AnyHost && !LoopbackHost(r.Host) {
		return &Refusal{Status: http.StatusForbidden, Code: "foreign_host", Description: fmt.Sprintf(
			"the Host header %s is not a loopback address or localhost: this listener answers only requests addressed to this machine by address (a page on a rebinding DNS name sends its own name)", quote(r.Host))}
	}
	if r.Origin != "" {
		return &Refusal{Status: http.StatusForbidden, Code: "cross_origin", Description: fmt.Sprintf(
			"a request from a web page (Origin: %s) is refused: send it from a test or a tool, not a browser", quote(r.Origin))}
	}
	if site := strings.ToLower(strings.TrimSpace(r.FetchSite)); site != "" && site != "none" && site != "same-origin" {
		return &Refusal{Status: http.StatusForbidden, Code: "cross_origin", Description: fmt.Sprintf(
			"a request a web page made (Sec-Fetch-Site: %s) is refused: send it from a test or a tool, not a browser", quote(site))}
	}
	if isWrite(r.Method) && (r.ContentType != "" || r.HasBody) && !IsJSON(r.ContentType) {
		got := "none was sent"
		if r.ContentType != "" {
			got = "not " + quote(r.ContentType)
		}
		return &Refusal{Status: http.StatusUnsupportedMediaType, Code: "unsupported_media_type", Description: "a write takes a JSON body: send Content-Type: application/json (" + got + ")"}
	}
	return nil
}

// isWrite reports whether method may change something.
func isWrite(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// IsJSON reports whether contentType is application/json, in any case and
// with any parameters.
func IsJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}

// LoopbackHost reports whether host, a Host header (a name or an address,
// with an optional port), names this machine by a loopback address
// (127.0.0.0/8, ::1) or as "localhost".
func LoopbackHost(host string) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	} else {
		host = strings.TrimSuffix(strings.TrimPrefix(host, "["), "]")
	}
	return IsLoopback(host)
}

// IsLoopback reports whether host, without a port, is "localhost" or a
// loopback address.
func IsLoopback(host string) bool {
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// quote is s quoted, cut to maxShown bytes.
func quote(s string) string {
	if len(s) > maxShown {
		return fmt.Sprintf("%q…", s[:maxShown])
	}
	return fmt.Sprintf("%q", s)
}

// Handler wraps next, a net/http handler, with the policy: a refused
// request is answered its Refusal as JSON and never reaches next.
func (p Policy) Handler(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if ref := p.Check(Request{
			Method: req.Method, Host: req.Host, Origin: req.Header.Get("Origin"),
			FetchSite: req.Header.Get("Sec-Fetch-Site"), ContentType: req.Header.Get("Content-Type"),
			HasBody: req.ContentLength != 0,
		}); ref != nil {
			w.Header().Set("Content-Type", "application/json;charset=UTF-8")
			w.Header().Set("Cache-Control", "no-store")
			w.WriteHeader(ref.Status)
			_ = json.NewEncoder(w).Encode(ref)
			return
		}
		next.ServeHTTP(w, req)
	})
}
