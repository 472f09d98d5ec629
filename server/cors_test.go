package server

import (
	"errors"
	"testing"
)

func TestCheckCORSOrigin(t *testing.T) {
	for _, good := range []string{"http://localhost:3000", "https://app.example", "https://app.example/", "http://127.0.0.1:8081", "http://[::1]:3000"} {
		if err := CheckCORSOrigin(good); err != nil {
			t.Errorf("CheckCORSOrigin(%q) = %v", good, err)
		}
		if err := (Options{CORSOrigin: good}).Validate(); err != nil {
			t.Errorf("Validate with %q = %v", good, err)
		}
	}
	for _, bad := range []string{"*", "localhost:3000", "localhost", "http://*", "https://*.example", "http://a.example,http://b.example",
		"ftp://localhost", "http://user@localhost", "http://localhost/app", "http://localhost?x", "http://localhost#x", "http://", "http://:3000", "", " "} {
		if err := CheckCORSOrigin(bad); !errors.Is(err, ErrBadCORSOrigin) {
			t.Errorf("CheckCORSOrigin(%q) = %v, want ErrBadCORSOrigin", bad, err)
		}
	}
	if err := (Options{}).Validate(); err != nil {
		t.Errorf("no origin: %v", err)
	}
}

// Every origin CheckCORSOrigin takes, New takes without a panic.
func TestNewTakesEveryOriginCheckCORSOriginTakes(t *testing.T) {
	for _, origin := range []string{"http://localhost:3000", "https://app.example/", "http://[::1]:3000"} {
		New(Options{Config: testConfig(t), CORSOrigin: origin})
	}
}
