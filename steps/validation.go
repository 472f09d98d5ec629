package steps

import (
	"net/http"

	"eventsvc/conformance/hal"
)

// Validation errors (reference rule API-11).

func (s *scenario) registerValidationSteps(sc stepRegistry) {
	sc.Step(`^the answer is a validation error on "([^"]*)"$`, func(field string) error { return s.validationError(field, "") })
	sc.Step(`^the answer is a validation error on "([^"]*)" with code "([^"]*)"$`, s.validationError)
	sc.Step(`^the answer is a validation error with the global code "([^"]*)"$`, func(code string) error { return s.validationError("", code) })
}

// validationError checks the reference server's 400 answer: an error on
// field with code, or with field empty, a global error with code.
func (s *scenario) validationError(field, code string) error {
	x, err := s.theAnswer()
	if err != nil {
		return err
	}
	if x.status != http.StatusBadRequest {
		return s.failf(x, "status %d, want 400", x.status)
	}
	obj, err := x.object()
	if err != nil {
		return s.about(x, err)
	}
	if index, _ := hal.Links(obj)["index"]; index == "" {
		return s.failf(x, "the error has no \"index\" link")
	}
	content, _ := obj["content"].([]any)
	for _, v := range content {
		e, _ := v.(map[string]any)
		f, hasField := e["field"]
		if field == "" && !hasField && e["code"] == code || field != "" && f == field && (code == "" || e["code"] == code) {
			if msg, _ := e["defaultMessage"].(string); msg == "" && field != "" {
				return s.failf(x, "the error on %q has no defaultMessage", field)
			}
			return nil
		}
	}
	return s.failf(x, "no error on field %q with code %q", field, code)
}
