package oauth

import (
	"encoding/base64"
	"errors"
	"strings"
	"testing"
)

func basic(s string) string { return "Basic " + base64.StdEncoding.EncodeToString([]byte(s)) }

func TestParseBasic(t *testing.T) {
	tests := []struct {
		header, id, secret string
		ok                 bool
	}{
		{basic("myApp:pass"), "myApp", "pass", true},
		{"basic " + base64.StdEncoding.EncodeToString([]byte("myApp:pass")), "myApp", "pass", true},
		{basic("my%20app:p%3Ass"), "my app", "p:ss", true}, // RFC 6749 §2.3.1
		{basic("app:with:colons"), "app", "with:colons", true},
		{"", "", "", false},
		{"Bearer abc", "", "", false},
		{"Basic !!!not-base64", "", "", false},
		{basic("no-colon"), "", "", false},
		{basic(":secret"), "", "", false},
		{basic("app:%zz"), "", "", false},
	}
	for _, tt := range tests {
		id, secret, err := ParseBasic(tt.header)
		if tt.ok != (err == nil) || id != tt.id || secret != tt.secret {
			t.Errorf("ParseBasic(%q) = %q, %q, %v", tt.header, id, secret, err)
		}
		if err != nil && !errors.Is(err, ErrInvalidClient) {
			t.Errorf("ParseBasic(%q) error %v is not invalid_client", tt.header, err)
		}
	}
}

func TestParseForm(t *testing.T) {
	tests := []struct {
		contentType, body string
		ok                bool
	}{
		{"application/x-www-form-urlencoded", "grant_type=password", true},
		{"application/x-www-form-urlencoded; charset=UTF-8", "a=1&b=2", true},
		{"application/json", `{"grant_type":"password"}`, false},
		{"", "grant_type=password", false},
		{"multipart/form-data; boundary=x", "--x--", false},
		{"application/x-www-form-urlencoded", "a=%zz", false},
	}
	for _, tt := range tests {
		_, err := ParseForm(tt.contentType, []byte(tt.body))
		if tt.ok != (err == nil) {
			t.Errorf("ParseForm(%q, %q) = %v", tt.contentType, tt.body, err)
		}
		if err != nil && !errors.Is(err, ErrInvalidRequest) {
			t.Errorf("ParseForm(%q) error %v is not invalid_request", tt.contentType, err)
		}
	}
}

func TestRepeatedParameterIsInvalid(t *testing.T) {
	form, err := ParseForm(formMediaType, []byte("grant_type=password&grant_type=password"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = required(form, "grant_type")
	if !errors.Is(err, ErrInvalidRequest) || !strings.Contains(err.Error(), "repeated") {
		t.Fatalf("err = %v", err)
	}
}

func TestParseScope(t *testing.T) {
	allowed := []string{"read", "write"}
	form, _ := ParseForm(formMediaType, []byte("scope=write+read+write"))
	got, err := parseScope(form, allowed)
	if err != nil || strings.Join(got, " ") != "read write" {
		t.Fatalf("parseScope = %v, %v", got, err)
	}
	form, _ = ParseForm(formMediaType, []byte("scope=read+admin"))
	if _, err := parseScope(form, allowed); !errors.Is(err, ErrInvalidScope) {
		t.Fatalf("unknown scope: err = %v", err)
	}
}
