package repro

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"eventsvc/internal/redact"
)

func TestScriptReadsSecretsFromVariablesAndTakesTokensFromAnswers(t *testing.T) {
	get := httptest.NewRequest("GET", "http://target.example/api/events", nil)
	get.Header.Set("Authorization", "Bearer shared-access-token")
	token := httptest.NewRequest("POST", "http://target.example/oauth/token", nil)
	token.Header.Set("Authorization", "Basic bXlBcHA6cyQzY3JldA==") // myApp:s$3cret
	token.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	create := httptest.NewRequest("POST", "http://target.example/api/events", nil)
	create.Header.Set("Authorization", "Bearer fresh-access-token")
	created := &http.Response{StatusCode: 201, Status: "201 Created", Proto: "HTTP/1.1", Header: http.Header{"Location": {"http://target.example/api/events/1"}}}
	put := httptest.NewRequest("PUT", "http://target.example/api/events/1", nil)
	put.Header.Set("Authorization", "Bearer fresh-access-token")
	answer := &http.Response{StatusCode: 200, Status: "200 OK", Proto: "HTTP/1.1", Header: http.Header{"Content-Type": {"application/json"}}}
	r := redact.New("s$3cret", "hunter2")
	s := Script{
		Title: `"A check" (x.feature:3)`, Base: "http://target.example/",
		Vars:     []Var{{"s$3cret", "${CONFORMANCE_CLIENT_SECRET}"}, {"myApp", "${CONFORMANCE_CLIENT_ID}"}, {"hunter2", "${CONFORMANCE_PASSWORD}"}, {"ann@example.org", "${CONFORMANCE_USERNAME}"}},
		ClientID: "myApp", ClientSecret: "s$3cret",
		Shared: []Shared{{Token: "shared-access-token", Name: "ACCESS_USER", UserVar: "CONFORMANCE_USERNAME", PassVar: "CONFORMANCE_PASSWORD", What: "user's"}},
		Log: []Exchange{
			Record(r, get, nil, answer, []byte(`{}`)),
			Record(r, token, []byte("grant_type=password&username=ann%40example.org&password=hunter2"), answer, []byte(`{"access_token":"fresh-access-token"}`)),
			Record(r, create, []byte(`{"name":"x"}`), created, nil),
			Record(r, put, []byte(`{"name":"x"}`), answer, nil),
		},
	}
	got := s.String()
	for _, want := range []string{
		`if [ -z "${BASE_URL:-}" ]; then BASE_URL='http://target.example'; fi`,
		`--data-urlencode "username=${CONFORMANCE_USERNAME}" --data-urlencode "password=${CONFORMANCE_PASSWORD}"`,
		`ACCESS_USER=$(field access_token "$out")`,
		`-H "Authorization: Bearer ${ACCESS_USER}"`,
		`"$(formenc "${CONFORMANCE_CLIENT_SECRET}")"`,
		`--data-urlencode "password=${CONFORMANCE_PASSWORD}"`,
		`ACCESS_2=$(field access_token "$out")`,
		`-H "Authorization: Bearer ${ACCESS_2}"`,
		`LOCATION_3=$(header Location "$out")`,
		`-g --path-as-is -X PUT "${LOCATION_3}"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the script lacks %s\n%s", want, got)
		}
	}
	for _, secret := range []string{"s$3cret", "hunter2", "shared-access-token", "fresh-access-token"} {
		if strings.Contains(got, secret) {
			t.Errorf("the script holds %q", secret)
		}
	}
	if strings.Contains(s.Log[1].Transcript, "hunter2") || !strings.Contains(s.Log[1].Transcript, "POST http://target.example/oauth/token") {
		t.Errorf("transcript:\n%s", s.Log[1].Transcript)
	}
}

func TestTranscribeWritesWhatRecordWrites(t *testing.T) {
	r := redact.New("s3cr3t-token")
	req, _ := http.NewRequest(http.MethodGet, "http://h/api/events?access_token=s3cr3t-token", nil)
	req.Header.Set("Authorization", "Bearer s3cr3t-token")
	resp := &http.Response{Proto: "HTTP/1.1", Status: "200 OK", StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}}}
	body := []byte(`{"token":"s3cr3t-token","name":"x"}`)
	recorded := Record(r, req, nil, resp, body)
	bare := recorded
	bare.Transcript = ""
	if got := Transcribe(r, bare); got != recorded.Transcript {
		t.Errorf("Transcribe =\n%s\nRecord =\n%s", got, recorded.Transcript)
	}
	if strings.Contains(recorded.Transcript, "s3cr3t") {
		t.Errorf("the transcript holds the secret:\n%s", recorded.Transcript)
	}
}
