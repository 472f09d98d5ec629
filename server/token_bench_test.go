package server

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// BenchmarkTokenGrant is one password grant end to end on a loopback port,
// with the demo credentials and their bcrypt cost (10): a client secret
// and a password check per grant.
func BenchmarkTokenGrant(b *testing.B) {
	conf := demoConfig(b)
	base := startLoadServer(b, conf)
	client := loadClient(b, 1)
	body := url.Values{"grant_type": {"password"}, "username": {"user@email.com"}, "password": {"user"}}.Encode()
	for b.Loop() {
		req, err := http.NewRequest("POST", base+"/oauth/token", strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Content-Type", loadFormType)
		req.SetBasicAuth("myApp", "pass")
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, err = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if err != nil {
			b.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("password grant: status %d", resp.StatusCode)
		}
	}
}
