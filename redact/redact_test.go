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
