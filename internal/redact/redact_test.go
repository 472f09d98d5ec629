package redact

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

func TestStringMasksKnownSecretsInEveryForm(t *testing.T) {
	secret := "s3cr3t/with+chars"
	r := New(secret)
	for _, form := range []string{
		secret,
		url.QueryEscape(secret),
		base64.StdEncoding.EncodeToString([]byte(secret)),
	} {
		got := r.String("before " + form + " after")
		if strings.Contains(got, form) || got != "before "+Mask+" after" {
			t.Errorf("String(%q) = %q", form, got)
		}
	}
}

func TestShortSecretsAreMaskedByPlaceOnly(t *testing.T) {
	r := New("user")
	if got := r.String("user@email.com"); got != "user@email.com" {
		t.Fatalf("short secret masked by value: %q", got)
	}
	if got := r.Body("application/x-www-form-urlencoded", []byte("username=user%40email.com&password=user")); got != "username=user%40email.com&password=***" {
		t.Fatalf("form not masked by place: %q", got)
	}
	// In any text, the value of a field or property of a secret's name:
	// a page of documentation that shows a form or a document.
	for text, want := range map[string]string{
		"curl -d 'grant_type=password&username=user@email.com&password=user'": "curl -d 'grant_type=password&username=user@email.com&password=***'",
		`{"Password": "user", "name": "user"}`:                                `{"Password": "***", "name": "user"}`,
		"password=username&password=users":                                    "password=username&password=users",
	} {
		if got := r.String(text); got != want {
			t.Errorf("String(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestHeaderMasksCredentialsAndKeepsTheScheme(t *testing.T) {
	h := http.Header{
		"Authorization": {"Bearer abc.def"},
		"Cookie":        {"JSESSIONID=42; theme=dark"},
		"Set-Cookie":    {"JSESSIONID=42; Path=/; HttpOnly"},
		"Content-Type":  {"text/plain"},
	}
	got := New().Header(h)
	want := map[string]string{
		"Authorization": "Bearer ***",
		"Cookie":        "JSESSIONID=***; theme=***",
		"Set-Cookie":    "JSESSIONID=***; Path=/; HttpOnly",
		"Content-Type":  "text/plain",
	}
	for k, v := range want {
		if got.Get(k) != v {
			t.Errorf("%s = %q, want %q", k, got.Get(k), v)
		}
	}
	if h.Get("Authorization") != "Bearer abc.def" {
		t.Errorf("Header changed its argument")
	}
}

func TestBodyMasksJSONSecretsAtAnyDepth(t *testing.T) {
	body := `{"access_token":"AAA","nested":{"refresh_token":"RRR"},"list":[{"password":"x"}],"scope":"read write"}`
	got := New().Body("application/json;charset=UTF-8", []byte(body))
	for _, leaked := range []string{"AAA", "RRR", `"x"`} {
		if strings.Contains(got, leaked) {
			t.Errorf("Body() = %s, leaks %s", got, leaked)
		}
	}
	if !strings.Contains(got, `"scope":"read write"`) {
		t.Errorf("Body() = %s, lost a harmless field", got)
	}
}

func TestBodyMasksByValueWhenItDoesNotParse(t *testing.T) {
	r := New("tok-123456")
	if got := r.Body("application/json", []byte(`{"broken": "tok-123456`)); strings.Contains(got, "tok-123456") {
		t.Fatalf("Body() = %q", got)
	}
}

func TestBodyReadsTheMediaTypeInAnyCase(t *testing.T) {
	for _, ct := range []string{"Application/X-WWW-Form-Urlencoded", "APPLICATION/X-WWW-FORM-URLENCODED; Charset=UTF-8", "application/x-www-form-urlencoded ; charset=utf-8"} {
		got := New().Body(ct, []byte("grant_type=password&Password=hunter2&refresh_token=abc"))
		if got != "grant_type=password&Password=***&refresh_token=***" {
			t.Errorf("Body(%q) = %q", ct, got)
		}
	}
	for _, ct := range []string{"Application/JSON", "application/problem+json", "application/hal+JSON; charset=utf-8"} {
		got := New().Body(ct, []byte(`{"Client_Secret": "s", "token": "t"}`))
		if strings.Contains(got, `"s"`) || strings.Contains(got, `"t"`) {
			t.Errorf("Body(%q) = %q", ct, got)
		}
	}
}

func TestStrictBodyTellsWhenTheSecretsCouldNotBeFound(t *testing.T) {
	for _, c := range []struct {
		ct, body, want string
		ok             bool
	}{
		{"application/x-www-form-urlencoded", "a=1&password=x", "a=1&password=***", true},
		{"application/json", `{"password":"x"}`, `{"password":"***"}`, true},
		{"text/plain", "password=x", "password=x", false},
		{"", "password=x", "password=x", false},
		{"application/json", `{"password":"x"`, `{"password":"x"`, false},
		{"application/json", `{"password":"x"}}`, `{"password":"x"}}`, false},
		{"application/json", `{"password":"x"} {"password":"y"}`, `{"password":"x"} {"password":"y"}`, false},
		{"application/x-www-form-urlencoded", "pass%ZZword=x&a=1", "***&a=1", false},
	} {
		got, ok := New().StrictBody(c.ct, []byte(c.body))
		if got != c.want || ok != c.ok {
			t.Errorf("StrictBody(%q, %q) = %q, %v; want %q, %v", c.ct, c.body, got, ok, c.want, c.ok)
		}
	}
}

func TestHeadersWhoseNamesSaySecretAreMasked(t *testing.T) {
	h := http.Header{}
	for _, name := range []string{"X-Api-Key", "Apikey", "X-Auth-Token", "X-Client-Secret", "X-Session-Id", "X-Password", "X-Amz-Security-Token", "Proxy-Authorization", "X-Credentials"} {
		h.Set(name, "value-of-"+name)
	}
	h.Set("Content-Type", "application/json")
	h.Set("WWW-Authenticate", `Bearer realm="event"`)
	got := New().Header(h)
	for name, v := range got {
		switch name {
		case "Content-Type", "Www-Authenticate":
			if v[0] != h.Get(name) {
				t.Errorf("%s = %q, changed", name, v[0])
			}
		default:
			if strings.Contains(v[0], "value-of") {
				t.Errorf("%s = %q, not masked", name, v[0])
			}
		}
	}
}
