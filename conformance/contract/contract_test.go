package contract

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"eventsvc/docs/openapi"
)

func TestTheDocumentIsAValidOpenAPI31Document(t *testing.T) {
	if _, err := Default(); err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(openapi.Document(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc["openapi"] != "3.1.0" {
		t.Fatalf("openapi = %v, want 3.1.0", doc["openapi"])
	}
}

// TestLoadRefusesBrokenDocuments: the validator is real, so a document
// that breaks the OpenAPI specification does not load.
func TestLoadRefusesBrokenDocuments(t *testing.T) {
	for name, edit := range map[string][2]string{
		"a dangling $ref":               {`"#/components/schemas/EventPage"`, `"#/components/schemas/Nowhere"`},
		"a type that does not exist":    {`"type": "boolean"`, `"type": "truth"`},
		"a 3.0 document":                {`"openapi": "3.1.0"`, `"openapi": "3.0.3"`},
		"a path parameter not declared": {`"/api/events/{id}": {`, `"/api/events/{id}/{other}": {`},
		"not JSON":                      {`{`, `[`},
	} {
		broken := bytes.Replace(openapi.Document(), []byte(edit[0]), []byte(edit[1]), 1)
		if bytes.Equal(broken, openapi.Document()) {
			t.Fatalf("%s: the edit %q changes nothing", name, edit[0])
		}
		if _, err := Load(broken); err == nil {
			t.Errorf("%s: Load = nil", name)
		}
	}
}

func request(method, target string) *http.Request {
	req, err := http.NewRequest(method, "http://127.0.0.1:8080"+target, nil)
	if err != nil {
		panic(err)
	}
	return req
}

var jsonHeader = http.Header{"Content-Type": {"application/json;charset=UTF-8"}}

func TestCheckAnswerRefusesWhatTheDocumentDoesNotSay(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	hal := http.Header{"Content-Type": {"application/hal+json"}}
	index := `{"_links":{"events":{"href":"http://h/api/events"},"profile":{"href":"http://h/docs/index.html#resources-index-access"}}}`
	if err := c.CheckAnswer(request("GET", "/api"), 200, hal, []byte(index)); err != nil {
		t.Fatalf("a good API root: %v", err)
	}
	for name, a := range map[string]struct {
		req    *http.Request
		status int
		body   string
	}{
		"a link missing":          {request("GET", "/api"), 200, `{"_links":{"events":{"href":"x"}}}`},
		"a property too many":     {request("GET", "/api"), 200, strings.Replace(index, `{"_links"`, `{"extra":1,"_links"`, 1)},
		"a status not listed":     {request("GET", "/api"), 418, `{"error":"teapot"}`},
		"an error without error":  {request("GET", "/api/events/7"), 404, `{"error_description":"nothing"}`},
		"a token type not bearer": {request("POST", "/oauth/token"), 200, `{"access_token":"a","token_type":"mac","refresh_token":"r","expires_in":600,"scope":"read"}`},
		"a page without page":     {request("GET", "/api/events"), 200, `{"_links":{"self":{"href":"s"},"first":{"href":"f"},"last":{"href":"l"},"profile":{"href":"p"},"get-an-event":{"href":"g","templated":true}}}`},
	} {
		header := hal
		if a.status >= 400 || a.req.URL.Path == "/oauth/token" {
			header = jsonHeader
		}
		if err := c.CheckAnswer(a.req, a.status, header, []byte(a.body)); err == nil {
			t.Errorf("%s: CheckAnswer = nil", name)
		}
	}
}

func TestCheckAnswerToAnUndocumentedRequest(t *testing.T) {
	c, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.CheckAnswer(request("GET", "/nothing"), 401, jsonHeader, []byte(`{"error":"unauthorized","error_description":"d"}`)); err != nil {
		t.Fatalf("a JSON error on an unknown path: %v", err)
	}
	if err := c.CheckAnswer(request("GET", "/nothing"), 401, jsonHeader, []byte(`{"message":"no"}`)); err == nil {
		t.Fatal("an error body without error passed")
	}
	if err := c.CheckAnswer(request("GET", "/favicon.ico"), 200, http.Header{"Content-Type": {"image/x-icon"}}, []byte{0, 0, 1, 0}); err != nil {
		t.Fatalf("a file the document does not describe: %v", err)
	}
}
