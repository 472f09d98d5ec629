package local

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	ok := Request{Method: http.MethodGet, Host: "127.0.0.1:9090"}
	for _, tc := range []struct {
		name     string
		policy   Policy
		edit     func(*Request)
		status   int
		code     string
		mentions string
	}{
		{name: "curl to 127.0.0.1", edit: func(*Request) {}},
		{name: "localhost", edit: func(r *Request) { r.Host = "localhost:9090" }},
		{name: "LOCALHOST without port", edit: func(r *Request) { r.Host = "LOCALHOST" }},
		{name: "IPv6 loopback", edit: func(r *Request) { r.Host = "[::1]:9090" }},
		{name: "IPv6 loopback without port", edit: func(r *Request) { r.Host = "[::1]" }},
		{name: "127.1.2.3", edit: func(r *Request) { r.Host = "127.1.2.3:9090" }},
		{name: "typed in the address bar", edit: func(r *Request) { r.FetchSite = "none" }},
		{name: "same-origin fetch metadata", edit: func(r *Request) { r.FetchSite = "same-origin" }},
		{name: "JSON write", edit: func(r *Request) { r.Method, r.ContentType, r.HasBody = http.MethodPost, "application/json", true }},
		{name: "JSON write with parameters, any case", edit: func(r *Request) { r.Method, r.ContentType = http.MethodPut, "Application/JSON; charset=utf-8" }},
		{name: "write without a body", edit: func(r *Request) { r.Method = http.MethodPost }},
		{name: "delete without a body", edit: func(r *Request) { r.Method = http.MethodDelete }},
		{name: "any host with a token", policy: Policy{AnyHost: true}, edit: func(r *Request) { r.Host = "control.example:9090" }},

		{name: "rebinding host", edit: func(r *Request) { r.Host = "rebind.evil.example:9090" },
			status: 403, code: "foreign_host", mentions: "rebind.evil.example"},
		{name: "a subdomain of localhost", edit: func(r *Request) { r.Host = "evil.localhost:9090" },
			status: 403, code: "foreign_host"},
		{name: "a host that starts with 127", edit: func(r *Request) { r.Host = "127.0.0.1.evil.example" },
			status: 403, code: "foreign_host"},
		{name: "no host", edit: func(r *Request) { r.Host = "" }, status: 403, code: "foreign_host"},
		{name: "a LAN address", edit: func(r *Request) { r.Host = "192.168.1.10:9090" }, status: 403, code: "foreign_host"},
		{name: "cross-site form", edit: func(r *Request) {
			r.Method, r.Origin, r.ContentType = http.MethodPost, "http://evil.example", "application/x-www-form-urlencoded"
		}, status: 403, code: "cross_origin", mentions: "evil.example"},
		{name: "Origin null", edit: func(r *Request) { r.Origin = "null" }, status: 403, code: "cross_origin"},
		{name: "an Origin even with a token", policy: Policy{AnyHost: true}, edit: func(r *Request) { r.Origin = "http://localhost:3000" },
			status: 403, code: "cross_origin"},
		{name: "cross-site fetch metadata", edit: func(r *Request) { r.FetchSite = "cross-site" }, status: 403, code: "cross_origin"},
		{name: "same-site fetch metadata", edit: func(r *Request) { r.FetchSite = "same-site" }, status: 403, code: "cross_origin"},
		{name: "text/plain write", edit: func(r *Request) { r.Method, r.ContentType = http.MethodPost, "text/plain" },
			status: 415, code: "unsupported_media_type", mentions: "text/plain"},
		{name: "form write", edit: func(r *Request) { r.Method, r.ContentType = http.MethodPost, "application/x-www-form-urlencoded" },
			status: 415, code: "unsupported_media_type"},
		{name: "a body without a media type", edit: func(r *Request) { r.Method, r.HasBody = http.MethodPost, true },
			status: 415, code: "unsupported_media_type", mentions: "none was sent"},
		{name: "multipart write", edit: func(r *Request) { r.Method, r.ContentType = http.MethodPut, "multipart/form-data; boundary=x" },
			status: 415, code: "unsupported_media_type"},
		{name: "a media type that is almost JSON", edit: func(r *Request) { r.Method, r.ContentType = http.MethodPost, "application/jsonp" },
			status: 415, code: "unsupported_media_type"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := ok
			tc.edit(&r)
			got := tc.policy.Check(r)
			if tc.status == 0 {
				if got != nil {
					t.Fatalf("Check(%+v) = %v, want accepted", r, got)
				}
				return
			}
			if got == nil || got.Status != tc.status || got.Code != tc.code {
				t.Fatalf("Check(%+v) = %+v, want %d %s", r, got, tc.status, tc.code)
			}
			if !strings.Contains(got.Description, tc.mentions) {
				t.Fatalf("description %q does not mention %q", got.Description, tc.mentions)
			}
		})
	}
}

func TestCheckQuotesAHugeHeaderShort(t *testing.T) {
	got := Policy{}.Check(Request{Method: http.MethodGet, Host: strings.Repeat("a", 10000)})
	if got == nil || len(got.Description) > 400 {
		t.Fatalf("Check of a 10,000-byte host = %v; want a refusal of a few hundred bytes", got)
	}
}

func TestHandlerAnswersTheRefusalAsJSON(t *testing.T) {
	reached := false
	h := Policy{}.Handler(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached = true }))
	req := httptest.NewRequest(http.MethodGet, "http://rebind.evil.example:9100/metrics", nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if reached || rec.Code != http.StatusForbidden {
		t.Fatalf("reached %v, status %d; want 403 and not reached", reached, rec.Code)
	}
	var body Refusal
	if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil || body.Code != "foreign_host" {
		t.Fatalf("body %q: %v", rec.Body, err)
	}
	req = httptest.NewRequest(http.MethodGet, "http://127.0.0.1:9100/metrics", nil)
	h.ServeHTTP(httptest.NewRecorder(), req)
	if !reached {
		t.Fatal("a loopback request did not reach the handler")
	}
}
