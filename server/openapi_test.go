package server

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"eventsvc/docs/openapi"
)

func TestTheOpenAPIDocumentIsAPublicFile(t *testing.T) {
	addr := listen(t)
	for _, auth := range []string{"Bearer not-a-token", "Basic !!!"} {
		resp := rawGet(t, addr, openapi.Path, auth)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !bytes.Equal(body, openapi.Document()) {
			t.Fatalf("GET %s with %q: status %d, %d bytes (want the document's %d)", openapi.Path, auth, resp.StatusCode, len(body), len(openapi.Document()))
		}
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
			t.Errorf("Content-Type %q", ct)
		}
		if cc := resp.Header.Get("Cache-Control"); cc != "public, max-age=300" {
			t.Errorf("Cache-Control %q", cc)
		}
	}
}
