// Package redact masks secrets (passwords, client secrets, access and
// refresh tokens) in text that people or reports will read: failure
// messages, recorded HTTP exchanges, logs.
//
// It masks in two ways. By place: the Authorization and cookie headers, and
// the form fields and JSON properties that carry secrets, whatever their
// value. By value: every secret it has been told about, wherever it appears,
// also in its URL-encoded and base64 forms.
package redact

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"
)

// Mask is what a secret is replaced with.
const Mask = "***"

// MinLength is the shortest secret masked by value. Shorter ones (the demo
// passwords "user", "pass" and "admin") are common words whose masking would garble
// the text; they are still masked by place.
const MinLength = 6

// sensitiveFields are the form fields and JSON properties masked by place.
var sensitiveFields = []string{
	"password", "client_secret", "access_token", "refresh_token", "token", "id_token", "secret", "clientSecret",
}

// sensitiveHeaders are the headers masked by place.
var sensitiveHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie", "Set-Cookie"}

// Redactor masks the secrets it knows. The zero value is ready to use and
// masks by place only. A Redactor is safe for concurrent use.
type Redactor struct {
	mu      sync.RWMutex
	secrets []string // with their encoded forms, longest first
}

// New returns a Redactor that knows the given secrets.
func New(secrets ...string) *Redactor {
	r := &Redactor{}
	for _, s := range secrets {
		r.Add(s)
	}
	return r
}

// Add teaches r one more secret. Secrets shorter than MinLength are masked
// by place only.
func (r *Redactor) Add(secret string) {
	if len(secret) < MinLength {
		return
	}
	forms := []string{
		secret,
		url.QueryEscape(secret),
		url.PathEscape(secret),
		base64.StdEncoding.EncodeToString([]byte(secret)),
		strings.TrimRight(base64.StdEncoding.EncodeToString([]byte(secret)), "="),
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range forms {
		if !slices.Contains(r.secrets, f) {
			r.secrets = append(r.secrets, f)
		}
	}
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
}

// String masks every known secret in s.
func (r *Redactor) String(s string) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	for _, secret := range r.secrets {
		s = strings.ReplaceAll(s, secret, Mask)
	}
	return s
}

// Header returns a copy of h with the credential headers masked (keeping the
// scheme of Authorization, "Bearer ***") and every known secret masked.
func (r *Redactor) Header(h http.Header) http.Header {
	out := make(http.Header, len(h))
	for name, values := range h {
		masked := make([]string, len(values))
		for i, v := range values {
			if slices.Contains(sensitiveHeaders, http.CanonicalHeaderKey(name)) {
				v = maskCredential(name, v)
			}
			masked[i] = r.String(v)
		}
		out[name] = masked
	}
	return out
}

func maskCredential(name, v string) string {
	switch http.CanonicalHeaderKey(name) {
	case "Authorization", "Proxy-Authorization":
		if scheme, _, ok := strings.Cut(v, " "); ok {
			return scheme + " " + Mask
		}
		return Mask
	case "Set-Cookie":
		nameValue, attrs, _ := strings.Cut(v, ";")
		cookie, _, _ := strings.Cut(nameValue, "=")
		if attrs != "" {
			attrs = ";" + attrs
		}
		return cookie + "=" + Mask + attrs
	default: // Cookie: a=1; b=2
		parts := strings.Split(v, ";")
		for i, p := range parts {
			n, _, _ := strings.Cut(p, "=")
			parts[i] = n + "=" + Mask
		}
		return strings.Join(parts, ";")
	}
}

// Body masks a request or response body of the given content type: the
// secret fields of a form or a JSON document by place, then every known
// secret by value. A body that does not parse is masked by value only.
func (r *Redactor) Body(contentType string, body []byte) string {
	s := string(body)
	switch {
	case strings.Contains(contentType, "x-www-form-urlencoded"):
		s = maskForm(s)
	case strings.Contains(contentType, "json"):
		s = maskJSON(s)
	}
	return r.String(s)
}

// maskForm masks the secret fields of a form-encoded body, keeping the order
// of its fields.
func maskForm(s string) string {
	pairs := strings.Split(s, "&")
	for i, p := range pairs {
		k, _, ok := strings.Cut(p, "=")
		name, err := url.QueryUnescape(k)
		if ok && err == nil && slices.Contains(sensitiveFields, name) {
			pairs[i] = k + "=" + Mask
		}
	}
	return strings.Join(pairs, "&")
}

// maskJSON masks the values of secret properties at any depth.
func maskJSON(s string) string {
	var doc any
	if err := json.Unmarshal([]byte(s), &doc); err != nil {
		return s
	}
	out, err := json.Marshal(maskValue(doc))
	if err != nil {
		return s
	}
	return string(out)
}

func maskValue(v any) any {
	switch t := v.(type) {
	case map[string]any:
		for k, child := range t {
			if slices.Contains(sensitiveFields, k) {
				t[k] = Mask
			} else {
				t[k] = maskValue(child)
			}
		}
	case []any:
		for i, child := range t {
			t[i] = maskValue(child)
		}
	}
	return v
}
