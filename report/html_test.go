package report

import (
	"strings"
	"testing"
)

func TestPrettyExchangeLaysOutJSONBodies(t *testing.T) {
	in := "request:\n    GET /api/events HTTP/1.1\n    Accept: */*\n\nresponse:\n    HTTP/1.1 200 OK\n    Content-Type: application/json\n\n    {\"a\":1,\"b\":{\"c\":\"***\"}}\n"
	got := prettyExchange(in)
	if !strings.Contains(got, "\n      \"b\": {\n        \"c\": \"***\"\n      }") || !strings.Contains(got, "GET /api/events HTTP/1.1") {
		t.Fatalf("prettyExchange:\n%s", got)
	}
	if text := "request:\n    GET / HTTP/1.1\n\n    not json\n"; prettyExchange(text) != text {
		t.Fatalf("a body that is not JSON changed:\n%s", prettyExchange(text))
	}
}
