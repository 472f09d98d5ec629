package redact

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"net/url"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostileSecrets are secrets that hold every character an encoding
// changes: & < > " ' % + : and, in the passwords, a space, a slash, a
// backslash and characters beyond ASCII.
var hostileSecrets = []string{
	`s3cr&t<>"'%+:x`,
	`P4ss w&rd<>"'%+:/\é€`,
	`Oth3r&<>"'%+:ü pass`,
}

// percentAll percent-encodes every byte of s, in upper or lower case hex.
func percentAll(s, format string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, format, s[i])
	}
	return b.String()
}

// lowerHex writes the %XX escapes of an encoded s in lower case.
func lowerHex(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			b.WriteString("%" + strings.ToLower(s[i+1:i+3]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// jsonEscapeAll writes every character of s as \uXXXX (a surrogate pair
// beyond the BMP), in the given hex format.
func jsonEscapeAll(s, format string) string {
	var b strings.Builder
	for _, r := range s {
		fmt.Fprintf(&b, format, r)
	}
	return b.String()
}

// jsonStyles are s as JSON encoders of several languages write it inside
// a string, without the quotes: Go's (HTML-safe or not), PHP's (\/ and
// \uXXXX beyond ASCII; upper-case hex with its JSON_HEX_* flags), and
// every character escaped.
func jsonStyles(s string) map[string]string {
	goHTML, _ := json.Marshal(s)
	var plain bytes.Buffer
	enc := json.NewEncoder(&plain)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	php := strings.NewReplacer(`"`, `\"`, `\`, `\\`, `/`, `\/`).Replace(s)
	var phpASCII strings.Builder
	for _, r := range php {
		if r > 127 {
			fmt.Fprintf(&phpASCII, `\u%04x`, r)
		} else {
			phpASCII.WriteRune(r)
		}
	}
	phpHex := strings.NewReplacer(`"`, `\u0022`, `'`, `\u0027`, `&`, `\u0026`, `<`, `\u003C`, `>`, `\u003E`).Replace(
		strings.NewReplacer(`\"`, `"`).Replace(phpASCII.String()))
	return map[string]string{
		"go":             strings.Trim(string(goHTML), `"`),
		"go, not html":   strings.Trim(strings.TrimSpace(plain.String()), `"`),
		"php":            phpASCII.String(),
		"php, hex flags": phpHex,
		"all, lower hex": jsonEscapeAll(s, `\u%04x`),
		"all, upper hex": jsonEscapeAll(s, `\u%04X`),
	}
}

// textForms are the forms of s that the masking replaces exactly.
func textForms(s string) map[string]string {
	forms := map[string]string{
		"raw":                    s,
		"query escape":           url.QueryEscape(s),
		"query escape, lower":    lowerHex(url.QueryEscape(s)),
		"path escape":            url.PathEscape(s),
		"path escape, lower":     lowerHex(url.PathEscape(s)),
		"every byte":             percentAll(s, "%%%02X"),
		"every byte, lower":      percentAll(s, "%%%02x"),
		"form, space as %20":     strings.ReplaceAll(url.QueryEscape(s), "+", "%20"),
		"html":                   html.EscapeString(s),
		"base64":                 base64.StdEncoding.EncodeToString([]byte(s)),
		"base64url":              base64.URLEncoding.EncodeToString([]byte(s)),
		"base64 of the form enc": base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(s))),
	}
	for style, f := range jsonStyles(s) {
		forms["json, "+style] = f
	}
	forms["a url's path in json, with \\/"] = strings.ReplaceAll((&url.URL{Path: s}).EscapedPath(), "/", `\/`)
	forms["json in a query"] = url.QueryEscape(jsonStyles(s)["go"])
	forms["json in html"] = html.EscapeString(jsonStyles(s)["go, not html"])
	return forms
}

func TestEveryTextFormOfASecretIsMaskedExactly(t *testing.T) {
	r := New(hostileSecrets...)
	for _, s := range hostileSecrets {
		for name, form := range textForms(s) {
			got := r.String("before " + form + " after")
			if got != "before "+Mask+" after" {
				t.Errorf("%q, %s: String(%q) = %q", s, name, form, got)
			}
		}
	}
}

// basicForms are the forms a Basic credential of id and secret takes, and
// the offset in each of the secret's first byte in what was encoded.
func basicForms(id, secret string) map[string][2]string {
	formPair := url.QueryEscape(id) + ":" + url.QueryEscape(secret)
	rawPair := id + ":" + secret
	return map[string][2]string{
		"form-encoded, std":    {url.QueryEscape(id) + ":", base64.StdEncoding.EncodeToString([]byte(formPair))},
		"form-encoded, url":    {url.QueryEscape(id) + ":", base64.URLEncoding.EncodeToString([]byte(formPair))},
		"form-encoded, no pad": {url.QueryEscape(id) + ":", base64.RawStdEncoding.EncodeToString([]byte(formPair))},
		"as is, std":           {id + ":", base64.StdEncoding.EncodeToString([]byte(rawPair))},
		"as is, url":           {id + ":", base64.URLEncoding.EncodeToString([]byte(rawPair))},
	}
}

// TestBase64OfIdAndSecretIsMaskedForEveryLengthOfId masks the Basic
// credential of ids of each length modulo 3, echoed in a header, in a JSON
// body and in plain text. What stays of the encoding around the mask may
// hold the id and at most a few bits of the secret's first and last bytes:
// the characters before it no more than encode the id and the colon, and
// at most three after it (a partial character and padding).
func TestBase64OfIdAndSecretIsMaskedForEveryLengthOfId(t *testing.T) {
	r := New(hostileSecrets...)
	for _, id := range []string{"app", "app1", "app12", "my app"} {
		for _, s := range hostileSecrets {
			for name, f := range basicForms(id, s) {
				prefix, cred := f[0], f[1]
				maxBefore := (len(prefix)*8 + 5) / 6
				for _, where := range []string{
					"Basic " + cred,
					`{"headers":{"Authorization":"Basic ` + cred + `"}}`,
					"the header was: Authorization: Basic " + cred + "\n",
				} {
					got := r.String(where)
					lead, rest, ok := strings.Cut(got, "Basic ")
					if !ok {
						t.Fatalf("%s: %q lost its scheme", name, got)
					}
					before, after, ok := strings.Cut(rest, Mask)
					if !ok {
						t.Errorf("id %q, %q, %s: not masked: %q", id, s, name, got)
						continue
					}
					kept := strings.TrimRight(strings.TrimRight(after, "\n"), `"}`)
					if len(before) > maxBefore || len(kept) > 3 || !strings.HasPrefix(cred, before) || !strings.HasSuffix(cred, kept) {
						t.Errorf("id %q, %q, %s: %q keeps too much of %q", id, s, name, got, cred)
					}
					if !strings.HasPrefix(where, lead) {
						t.Errorf("id %q, %s: %q lost its beginning", id, name, got)
					}
				}
			}
		}
	}
}

// TestBase64OfASecretIsMaskedAtEveryAlignment puts a secret after 0 to 5
// other bytes, and before 0 to 2, in base64 of both alphabets, padded or
// not: whatever surrounds it, no run of base64 that holds three of the
// secret's bytes stays.
func TestBase64OfASecretIsMaskedAtEveryAlignment(t *testing.T) {
	r := New(hostileSecrets...)
	encodings := map[string]*base64.Encoding{"std": base64.StdEncoding, "url": base64.URLEncoding, "raw url": base64.RawURLEncoding}
	for _, s := range hostileSecrets {
		for lead := 0; lead < 6; lead++ {
			for trail := 0; trail < 3; trail++ {
				plain := strings.Repeat("L", lead) + s + strings.Repeat("T", trail)
				for name, enc := range encodings {
					encoded := enc.EncodeToString([]byte(plain))
					got := r.String("<" + encoded + ">")
					before, after, ok := strings.Cut(strings.Trim(got, "<>"), Mask)
					if !ok || len(before) > (lead*8+5)/6 || len(strings.TrimRight(after, "=")) > (trail*8+5)/6+1 {
						t.Errorf("%q after %d bytes and before %d, %s: %q from %q", s, lead, trail, name, got, encoded)
					}
				}
			}
		}
	}
}

// TestMaskingLeavesOrdinaryTextAlone runs the masking of hostile secrets,
// and of tokens, over text with none of them: answers, links, other base64
// and other credentials stay as they were.
func TestMaskingLeavesOrdinaryTextAlone(t *testing.T) {
	r := New(append(hostileSecrets, "Z3x9QmR0c2FtcGxlLXRva2VuLXZhbHVl", "demo-token-123456")...)
	r.Add("user") // a demo password: masked by place only
	texts := []string{
		`{"_links":{"self":{"href":"http://127.0.0.1:8080/api/events?page=2&size=20"}},"name":"Tom & Jerry <live>","note":"100% \"fun\" + more: yes"}`,
		"Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("other-app:other-secret&<>")),
		"user@email.com signed in as user; the user's events: 3",
		base64.StdEncoding.EncodeToString([]byte(strings.Repeat("an ordinary sentence of text, ", 20))),
		`caf\u00e9 \"quoted\" %41%42%43 &amp; &lt;b&gt; a+b c%2Bd`,
		"GET http://127.0.0.1:8080/api/events/7 → 200 OK",
	}
	for _, text := range texts {
		if got := r.String(text); got != text {
			t.Errorf("String(%q)\n = %q", text, got)
		}
	}
}

func TestJSONBodiesAreMaskedByValueAndKeepTheirCharacters(t *testing.T) {
	s := hostileSecrets[0]
	r := New(s)
	doc, _ := json.Marshal(map[string]any{
		"note":   "the secret " + s + " was echoed",
		"nested": []any{map[string]any{"v": s}},
		s:        "a secret as a name",
		"html":   "Tom & Jerry <live> 'quoted'",
		"big":    json.Number("12345678901234567890"),
	})
	got := r.Body("application/json", doc)
	if !utf8.ValidString(got) || !json.Valid([]byte(got)) {
		t.Fatalf("Body() = %s, not JSON", got)
	}
	for _, leak := range []string{s, `s3cr\u0026t`, `\u003c\u003e`} {
		if strings.Contains(got, leak) {
			t.Errorf("Body() = %s, holds %q", got, leak)
		}
	}
	for _, kept := range []string{`"note":"the secret *** was echoed"`, `"Tom & Jerry <live> 'quoted'"`, `"big":12345678901234567890`, `[{"v":"***"}]`} {
		if !strings.Contains(got, kept) {
			t.Errorf("Body() = %s, want %s in it", got, kept)
		}
	}
}

// TestCutJSONIsMaskedInItsEscapedForms: a JSON body cut short does not
// parse, and is masked by value in the forms its encoder wrote.
func TestCutJSONIsMaskedInItsEscapedForms(t *testing.T) {
	r := New(hostileSecrets...)
	for _, s := range hostileSecrets {
		for style, f := range jsonStyles(s) {
			body := `{"echo":{"password_was":"` + f + `","more":"…`
			got := r.Body("application/json", []byte(body))
			if got != `{"echo":{"password_was":"***","more":"…` {
				t.Errorf("%q, %s: Body() = %s", s, style, got)
			}
		}
	}
}
