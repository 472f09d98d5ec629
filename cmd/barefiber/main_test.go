package main

import (
	"io"
	"net/http/httptest"
	"testing"
)

func TestNewAnswersTheRecordedBytes(t *testing.T) {
	app := New([]Recorded{
		{Method: "GET", Target: "/api?x=1", Status: 200, Header: [][2]string{{"Content-Type", "application/hal+json"}, {"Vary", "Authorization"}}, Body: []byte(`{"a":1}`)},
		{Method: "GET", Target: "/api?x=1", Authorized: true, Status: 200, Header: [][2]string{{"Cache-Control", "no-store"}}, Body: []byte(`{"b":2}`)},
	})
	for _, tt := range []struct {
		target, auth, body, header, value string
		status                            int
	}{
		{"/api?x=1", "", `{"a":1}`, "Vary", "Authorization", 200},
		{"/api?x=1", "Bearer t", `{"b":2}`, "Cache-Control", "no-store", 200},
		{"/api", "", "Not Found", "", "", 404},
	} {
		req := httptest.NewRequest("GET", tt.target, nil)
		if tt.auth != "" {
			req.Header.Set("Authorization", tt.auth)
		}
		resp, err := app.Test(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != tt.status || string(body) != tt.body || (tt.header != "" && resp.Header.Get(tt.header) != tt.value) {
			t.Errorf("%s %q: %d %q %v", tt.target, tt.auth, resp.StatusCode, body, resp.Header)
		}
	}
}
