// Package openapi holds the OpenAPI 3.1 document of the Event Service API,
// openapi.json: every endpoint, the OAuth 2.0 password flow and bearer
// security, the HAL bodies with their links, paging, the event and its
// validation, and every error body. The reference server serves it at
// /docs/openapi.json; package contract checks answers against it.
package openapi

import _ "embed"

// document is openapi.json.
//
//go:embed openapi.json
var document []byte

// Path is where the reference server serves the document.
const Path = "/docs/openapi.json"

// Document returns the OpenAPI document, a copy the caller may keep.
func Document() []byte { return append([]byte(nil), document...) }
