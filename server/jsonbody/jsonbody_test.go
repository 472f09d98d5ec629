package jsonbody

import (
	"strings"
	"testing"
)

func TestABodyIsOneObjectOfKnownFields(t *testing.T) {
	type in struct {
		Name  string   `json:"name"`
		Times int      `json:"times"`
		On    *bool    `json:"on"`
		Tags  []string `json:"tags"`
	}
	for body, want := range map[string]string{
		``:                       "the body is empty; send one JSON object",
		`  `:                     "the body is empty; send one JSON object",
		`{"name": "x"`:           "ends too early",
		`{"name": }`:             "not valid JSON (at byte 10)",
		`[1]`:                    "the body must be one JSON object",
		`{"times": "3"}`:         "times must be a JSON number, not string",
		`{"on": 1}`:              "on must be a JSON boolean",
		`{"tags": {}}`:           "tags must be a JSON array",
		`{"name": 5}`:            "name must be a JSON string",
		`{"nme": "x"}`:           `unknown field "nme"`,
		`{"name": "x"} {}`:       "one JSON object and nothing after it",
		`{"name": "x"} trailing`: "one JSON object and nothing after it",
	} {
		var v in
		err := Decode([]byte(body), &v)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Decode(%q) = %v, want %q", body, err, want)
		}
	}
	var v in
	if err := Decode([]byte(` {"name": "x", "times": 3, "on": true, "tags": ["a"]} `), &v); err != nil || v.Name != "x" || v.Times != 3 || !*v.On || v.Tags[0] != "a" {
		t.Errorf("Decode of a valid body = %v, %+v", err, v)
	}
}
