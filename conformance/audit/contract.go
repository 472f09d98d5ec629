package audit

import (
	"net/http"
	"net/url"
	"strings"
)

// Contract checks an answer against the reference server's OpenAPI
// document (/docs/openapi.json): the choices the specification leaves
// open, as the reference server makes them (spec API-11). Package
// contract has one.
type Contract interface {
	// CheckAnswer returns an error saying how the answer to req differs
	// from what the document says, or nil. Only the method, path and
	// query of req are read.
	CheckAnswer(req *http.Request, status int, header http.Header, body []byte) error
}

// CheckContract has every exchange of the scope from now on checked
// against Options.Contract (API-11), and those of its forks: a scenario
// about the reference server's choices, or an exploration of the
// reference server. Without a Contract it does nothing.
func (s *Scope) CheckContract() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.contract = s.a.o.Contract != nil
}

// underContract reports whether o is to be checked against the
// document: an exchange of a scope that asks for it (CheckContract) at
// the world's origin, answered by the target itself.
func underContract(o *observed) bool {
	switch o.x.Status {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return false // the target protects itself, or a gateway answers for it
	}
	return o.contract && o.path != "" && o.w.a.o.Contract != nil
}

// checkContract checks o against the document, by its path under the
// world's base (API-11). The validator's first line is the message: the
// lines after it dump the schema and the value.
func (w *world) checkContract(o *observed) *Finding {
	o.checked("API-11")
	u := &url.URL{Path: o.path, RawQuery: o.url.RawQuery}
	req := &http.Request{Method: o.x.Method, URL: u, Header: http.Header{}, Host: o.url.Host}
	if err := w.a.o.Contract.CheckAnswer(req, o.x.Status, o.x.RespHeader, o.x.RespBody); err != nil {
		line, _, _ := strings.Cut(err.Error(), "\n")
		return finding("API-11", "%s (the OpenAPI document is /docs/openapi.json)", line)
	}
	return nil
}
