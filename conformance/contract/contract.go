// Package contract checks HTTP answers against the Event Service API's
// OpenAPI document (package openapi), so that the document cannot drift
// from the reference server: the conformance suite checks every answer of
// its @ref scenarios with it.
//
// It uses kin-openapi, which validates OpenAPI 3.1 documents and their
// JSON Schema 2020-12 schemas.
package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"eventsvc/docs/openapi"
)

// Contract is a loaded, valid OpenAPI document, ready to check answers. It
// is safe for concurrent use.
type Contract struct {
	doc    *openapi3.T
	router routers.Router
	errRef *openapi3.SchemaRef
}

// Load reads an OpenAPI document and validates it against the OpenAPI
// specification (3.1 schemas with JSON Schema 2020-12). Its OAuthError
// schema is what an undocumented error answer is checked against.
func Load(document []byte) (*Contract, error) { return LoadWith(document, "OAuthError") }

// LoadWith is Load for a document whose schema of error answers is named
// errorSchema.
func LoadWith(document []byte, errorSchema string) (*Contract, error) {
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(document)
	if err != nil {
		return nil, fmt.Errorf("read the OpenAPI document: %w", err)
	}
	if doc.OpenAPIMajorMinor() != "3.1" {
		return nil, fmt.Errorf("the OpenAPI document is version %q, not 3.1", doc.OpenAPI)
	}
	if err := doc.Validate(loader.Context); err != nil {
		return nil, fmt.Errorf("the OpenAPI document is not valid: %w", err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		return nil, fmt.Errorf("route the OpenAPI document: %w", err)
	}
	errRef, ok := doc.Components.Schemas[errorSchema]
	if !ok {
		return nil, fmt.Errorf("the OpenAPI document has no %s schema", errorSchema)
	}
	return &Contract{doc: doc, router: router, errRef: errRef}, nil
}

// Default loads the project's document, openapi.Document.
func Default() (*Contract, error) { return Load(openapi.Document()) }

// CheckAnswer checks an answer to req against the document: its status
// must be one the operation lists, and its headers and body must match
// that response's schemas. An answer to a request no operation matches
// (an unknown path, a file) is checked, when it is a JSON error, against
// the OAuthError schema, and otherwise passes. Only the method, path and
// query of req are read.
func (c *Contract) CheckAnswer(req *http.Request, status int, header http.Header, body []byte) error {
	// The router matches the document's relative server "/" against any
	// host: route a copy of the request by path and query alone.
	routed := &http.Request{Method: req.Method, URL: &url.URL{Path: req.URL.Path, RawPath: req.URL.RawPath, RawQuery: req.URL.RawQuery}, Header: http.Header{}, Host: req.Host}
	route, params, err := c.router.FindRoute(routed)
	if err != nil {
		return c.checkUndocumented(status, header, body)
	}
	// Bodies that are not JSON (the documentation page) are not read:
	// the document gives them no schema beyond a string.
	mt, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
	notJSON := len(body) > 0 && !isJSON(mt)
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: routed, PathParams: params, Route: route},
		Status:                 status,
		Header:                 header,
		Body:                   io.NopCloser(bytes.NewReader(body)),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true, ExcludeResponseBody: notJSON},
	}
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		return fmt.Errorf("%s %s answered %d, which does not match the OpenAPI document: %w", req.Method, req.URL.Path, status, err)
	}
	return nil
}

// checkUndocumented checks a JSON error answer against OAuthError.
func (c *Contract) checkUndocumented(status int, header http.Header, body []byte) error {
	mt, _, _ := mime.ParseMediaType(header.Get("Content-Type"))
	if status < 400 || !isJSON(mt) {
		return nil
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return fmt.Errorf("an error answer (%d) is not JSON: %w", status, err)
	}
	if err := c.doc.ValidateSchemaJSON(c.errRef.Value, v, openapi3.EnableJSONSchema2020(), openapi3.MultiErrors()); err != nil {
		return fmt.Errorf("an error answer (%d) does not match the OAuthError schema: %w", status, err)
	}
	return nil
}

func isJSON(mediaType string) bool {
	return mediaType == "application/json" || strings.HasSuffix(mediaType, "+json")
}
