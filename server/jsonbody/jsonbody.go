// Package jsonbody reads a request body of the control API that must be
// one JSON object with no unknown field, and says in a sentence what is
// wrong with a body that is not.
package jsonbody

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Decode reads body into v: one JSON object, no field v does not have,
// and nothing after it. Its error is a sentence for the caller, such as
// "fraction must be a JSON number".
func Decode(body []byte, v any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return errors.New("the body is empty; send one JSON object")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return errors.New(describe(err))
	}
	if err := dec.Decode(&struct{}{}); err != io.EOF {
		return errors.New("the body must hold one JSON object and nothing after it")
	}
	return nil
}

// describe turns a decoding error into a sentence.
func describe(err error) string {
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return fmt.Sprintf("the body is not valid JSON (at byte %d): %v", syntax.Offset, syntax)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the body is not valid JSON: it ends too early"
	case errors.As(err, &typ):
		if typ.Field == "" {
			return "the body must be one JSON object"
		}
		return fmt.Sprintf("%s must be a JSON %s, not %s", typ.Field, kind(typ.Type.Kind().String()), typ.Value)
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		return "unknown field " + strings.TrimPrefix(err.Error(), "json: unknown field ")
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

// kind names the JSON type that decodes into a Go value of goKind.
func kind(goKind string) string {
	switch goKind {
	case "string":
		return "string"
	case "bool":
		return "boolean"
	case "struct", "map":
		return "object"
	case "slice", "array":
		return "array"
	case "ptr", "interface":
		return "value"
	}
	return "number"
}
