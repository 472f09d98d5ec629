package main

import (
	"bytes"
	"encoding/json"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

// escapingTarget is a reference server behind a proxy that writes every
// text of its JSON answers HTML-escaped, as the second implementation's
// serializer does in its bug report "texts written HTML-escaped"
// (conformance/othersvc/bugreports_store.go): the scenarios, whose texts hold
// no markup, pass against it; an exploration, whose generated texts do,
// finds that they do not read back as written (API-6, API-9).
func escapingTarget(t *testing.T) string {
	t.Helper()
	rp, _ := proxyToReference(t)
	rp.ModifyResponse = func(resp *http.Response) error {
		if !strings.HasPrefix(resp.Request.URL.Path, "/api/events") || !strings.Contains(resp.Header.Get("Content-Type"), "json") {
			return nil
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		var doc map[string]any
		if json.Unmarshal(b, &doc) == nil && doc != nil {
			escapeTexts(doc)
			b, _ = json.Marshal(doc)
		}
		resp.Body = io.NopCloser(bytes.NewReader(b))
		resp.ContentLength = int64(len(b))
		resp.Header.Set("Content-Length", strconv.Itoa(len(b)))
		return nil
	}
	srv := httptest.NewServer(rp)
	t.Cleanup(srv.Close)
	return srv.URL
}

// escapeTexts HTML-escapes every string of doc outside its links.
func escapeTexts(doc map[string]any) {
	for k, v := range doc {
		switch v := v.(type) {
		case string:
			doc[k] = html.EscapeString(v)
		case map[string]any:
			if k != "_links" {
				escapeTexts(v)
			}
		case []any:
			for _, e := range v {
				if m, ok := e.(map[string]any); ok {
					escapeTexts(m)
				}
			}
		}
	}
}
