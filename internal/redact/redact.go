// Package redact masks secrets (passwords, client secrets, access and
// refresh tokens) in text that people or reports will read: failure
// messages, recorded HTTP exchanges, logs.
//
// It masks in two ways. By place: the headers whose names say they carry a
// credential (Authorization, cookies, and any name that says key, token,
// secret, password, session or credential), and the form fields and JSON
// properties that carry secrets, whatever their value and the case of
// their names or media type. By value: every secret it has been told
// about, wherever it appears and in every form it takes there: percent-
// and form-encoded, escaped in JSON or HTML, and in base64 alone or after
// anything else, as in a Basic credential (forms.go). A JSON document is
// masked in its decoded strings and written back with the characters it
// had.
package redact

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"net/url"
	"regexp"
	"slices"
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

// sensitiveHeaderWords are the words whose presence in a header's name
// (in any case) masks its value by place: X-Api-Key, X-Auth-Token,
// X-Client-Secret, a session id.
var sensitiveHeaderWords = []string{"token", "secret", "password", "passwd", "session", "credential", "cookie", "authorization"}

// SensitiveHeader reports whether the header called name carries a
// credential, whatever its value: Authorization, Proxy-Authorization,
// Cookie, Set-Cookie, and every name that ends in "key" or holds one of
// the words token, secret, password, session or credential.
func SensitiveHeader(name string) bool {
	n := strings.ToLower(name)
	if strings.HasSuffix(n, "key") {
		return true
	}
	for _, w := range sensitiveHeaderWords {
		if strings.Contains(n, w) {
			return true
		}
	}
	return false
}

// sensitiveField reports whether a form field or JSON property called
// name carries a secret, in any case.
func sensitiveField(name string) bool {
	for _, f := range sensitiveFields {
		if strings.EqualFold(name, f) {
			return true
		}
	}
	return false
}

// MediaType is the media type of a Content-Type header, in lower case
// and without its parameters; "" when it does not parse.
func MediaType(contentType string) string {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return ""
	}
	return mt
}

// IsForm reports whether contentType is application/x-www-form-urlencoded,
// in any case and with any parameters.
func IsForm(contentType string) bool {
	return MediaType(contentType) == "application/x-www-form-urlencoded"
}

// isJSON reports whether contentType is JSON: application/json, or a
// type with the +json suffix (RFC 6839 §3.1).
func isJSON(contentType string) bool {
	mt := MediaType(contentType)
	return mt == "application/json" || strings.HasSuffix(mt, "+json")
}

// Redactor masks the secrets it knows. The zero value is ready to use and
// masks by place only. A Redactor is safe for concurrent use.
type Redactor struct {
	mu    sync.RWMutex
	known map[string]bool     // the forms of the secrets (forms), each once
	index map[uint32][]string // the forms by their first four bytes
	pairs *[1 << 10]uint64    // a bit for the first two bytes of each form
	// short finds the secrets shorter than MinLength where text names
	// them: a form field or a JSON property of a secret's name.
	short  *regexp.Regexp
	shorts []string
	// probes are what text must hold, in any case of ASCII letters, for
	// short to find anything in it: the short secrets as they are and
	// percent-encoded. Most text holds none, and skips short, a
	// case-insensitive regular expression that took a sixth of a run's
	// time.
	probes []string
	// anyText is set when a short secret is not ASCII, and every text
	// goes through short.
	anyText bool
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
		r.addShort(secret)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.known == nil {
		r.known, r.index, r.pairs = map[string]bool{}, map[uint32][]string{}, new([1 << 10]uint64)
	}
	for _, f := range forms(secret) {
		if !r.known[f] {
			r.known[f] = true
			r.index[prefix4(f)] = append(r.index[prefix4(f)], f)
			p := pair(f[0], f[1])
			r.pairs[p/64] |= 1 << (p % 64)
		}
	}
}

// addShort teaches r a secret shorter than MinLength, masked in text
// only as the value of a field or property of a secret's name
// ("password=user", "\"password\":\"user\"").
func (r *Redactor) addShort(secret string) {
	if secret == "" {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if slices.Contains(r.shorts, secret) {
		return
	}
	r.shorts = append(r.shorts, secret)
	var values []string
	for _, s := range r.shorts {
		values = append(values, regexp.QuoteMeta(s), regexp.QuoteMeta(url.QueryEscape(s)))
	}
	for _, s := range []string{secret, url.QueryEscape(secret)} {
		r.probes = append(r.probes, s)
		r.anyText = r.anyText || !isASCII(s)
	}
	names := make([]string, len(sensitiveFields))
	for i, n := range sensitiveFields {
		names[i] = regexp.QuoteMeta(n)
	}
	r.short = regexp.MustCompile(`(?i)(\b(?:` + strings.Join(names, "|") + `)(?:=|"\s*:\s*"))(?:` + strings.Join(values, "|") + `)([^A-Za-z0-9._~%+-]|$)`)
}

// isASCII reports whether s is ASCII alone.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// containsFold reports whether s holds sub, an ASCII string, with ASCII
// letters in any case.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if lower(s[i]) == lower(sub[0]) && strings.EqualFold(s[i:i+len(sub)], sub) {
			return true
		}
	}
	return false
}

// lower is b in lower case when b is an ASCII letter.
func lower(b byte) byte {
	if 'A' <= b && b <= 'Z' {
		return b + 'a' - 'A'
	}
	return b
}

func pair(a, b byte) uint16 { return uint16(a) | uint16(b)<<8 }

// prefix4 is the first four bytes of s, which has at least four.
func prefix4(s string) uint32 {
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// String masks every known secret in s, in every form it takes in text:
// as it is, percent- or form-encoded (in either case of hex), escaped in a
// JSON string (\" \/ \u0026 … in either case) or as an HTML reference,
// one inside the other, and in base64 (forms). Overlapping forms are
// masked as one.
func (r *Redactor) String(s string) string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.short != nil && (r.anyText || slices.ContainsFunc(r.probes, func(p string) bool { return containsFold(s, p) })) {
		s = r.short.ReplaceAllString(s, "${1}"+Mask+"${2}")
	}
	if len(r.index) == 0 || len(s) < 4 {
		return s
	}
	var found [][2]int
	eachView(s, func(v *view) {
		for i := 0; i+4 <= len(v.b); i++ {
			if p := pair(v.b[i], v.b[i+1]); r.pairs[p/64]&(1<<(p%64)) == 0 {
				continue
			}
			for _, f := range r.index[prefix4(string(v.b[i:i+4]))] {
				if bytes.HasPrefix(v.b[i:], []byte(f)) {
					from, to := v.span(i, i+len(f))
					found = append(found, [2]int{from, to})
				}
			}
		}
	})
	if len(found) == 0 {
		return s
	}
	slices.SortFunc(found, func(a, b [2]int) int { return a[0] - b[0] })
	var b strings.Builder
	at := 0
	for i := 0; i < len(found); {
		from, to := found[i][0], found[i][1]
		for i++; i < len(found) && found[i][0] <= to; i++ {
			to = max(to, found[i][1])
		}
		b.WriteString(s[at:from])
		b.WriteString(Mask)
		at = to
	}
	b.WriteString(s[at:])
	return b.String()
}

// Header returns a copy of h with the credential headers masked (keeping the
// scheme of Authorization, "Bearer ***", and the names of cookies;
// SensitiveHeader) and every known secret masked.
func (r *Redactor) Header(h http.Header) http.Header {
	out := make(http.Header, len(h))
	for name, values := range h {
		masked := make([]string, len(values))
		for i, v := range values {
			if SensitiveHeader(name) {
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
	case "Cookie": // a=1; b=2
		parts := strings.Split(v, ";")
		for i, p := range parts {
			n, _, _ := strings.Cut(p, "=")
			parts[i] = n + "=" + Mask
		}
		return strings.Join(parts, ";")
	}
	return Mask
}

// Body masks a request or response body of the given content type (its
// media type in any case, with any parameters): the secret fields of a
// form or a JSON document by place, then every known secret by value. A
// body that does not parse is masked by value only.
func (r *Redactor) Body(contentType string, body []byte) string {
	s, _ := r.body(contentType, body)
	return s
}

// StrictBody is Body for a body that may carry secrets in fields: it
// reports ok only when the body parsed as a form or as JSON, so that every
// secret field in it was masked by place. A caller that must not keep a
// secret (the journal of the token endpoint) drops a body that is not ok.
// A form pair whose name does not decode is masked whole.
func (r *Redactor) StrictBody(contentType string, body []byte) (masked string, ok bool) {
	return r.body(contentType, body)
}

func (r *Redactor) body(contentType string, body []byte) (string, bool) {
	s, ok := string(body), false
	switch {
	case IsForm(contentType):
		s, ok = maskForm(s)
	case isJSON(contentType):
		s, ok = r.maskJSON(s)
	}
	return r.String(s), ok
}

// maskForm masks the secret fields of a form-encoded body, keeping the
// order of its fields; a pair whose name does not decode is masked whole,
// and ok is then false.
func maskForm(s string) (string, bool) {
	ok := true
	pairs := strings.Split(s, "&")
	for i, p := range pairs {
		k, _, hasValue := strings.Cut(p, "=")
		name, err := url.QueryUnescape(k)
		switch {
		case err != nil:
			pairs[i], ok = Mask, false
		case hasValue && sensitiveField(name):
			pairs[i] = k + "=" + Mask
		}
	}
	return strings.Join(pairs, "&"), ok
}

// maskJSON masks the values of secret properties at any depth, and every
// known secret in the names and strings of the document, decoded; it
// writes the document back with the characters it had (no \u0026 for &)
// and its numbers as they were written. ok is false when s is not JSON.
func (r *Redactor) maskJSON(s string) (string, bool) {
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var doc any
	if err := d.Decode(&doc); err != nil || strings.Trim(s[d.InputOffset():], " \t\r\n") != "" {
		return s, false
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(r.maskValue(doc)); err != nil {
		return s, false
	}
	return strings.TrimSuffix(b.String(), "\n"), true
}

func (r *Redactor) maskValue(v any) any {
	switch t := v.(type) {
	case string:
		return r.String(t)
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, child := range t {
			if sensitiveField(k) {
				out[r.String(k)] = Mask
			} else {
				out[r.String(k)] = r.maskValue(child)
			}
		}
		return out
	case []any:
		for i, child := range t {
			t[i] = r.maskValue(child)
		}
	}
	return v
}
