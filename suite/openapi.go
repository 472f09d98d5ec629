package suite

import (
	"fmt"

	"eventsvc/conformance/contract"
	"eventsvc/conformance/target"
)

// WithContract gives t the API's OpenAPI document as its Contract, unless
// it has one: every answer of the @ref scenarios is checked against it, so
// that the document cannot drift from the reference server.
func WithContract(t target.Target) (target.Target, error) {
	if t.Contract != nil {
		return t, nil
	}
	c, err := contract.Default()
	if err != nil {
		return t, fmt.Errorf("the OpenAPI document: %w", err)
	}
	t.Contract = c
	return t, nil
}
