package event

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// absent, as a value in a body change, removes the property.
type absentT struct{}

var absent = absentT{}

// validFields is a body with every property a client may set.
func validFields() map[string]any {
	return map[string]any{
		"name":                    "Spring",
		"description":             "REST API development with Spring",
		"beginEnrollmentDateTime": "2026-11-01T09:00:00",
		"closeEnrollmentDateTime": "2026-11-10T18:00:00",
		"beginEventDateTime":      "2026-11-20T10:00:00",
		"endEventDateTime":        "2026-11-25T14:21:00",
		"location":                "D2 Startup Factory",
		"basePrice":               100,
		"maxPrice":                200,
		"limitOfEnrollment":       100,
	}
}

// body is the valid body with the changes applied (absent removes a
// property; a json.RawMessage is sent as written).
func body(t *testing.T, changes map[string]any) []byte {
	t.Helper()
	fields := validFields()
	for k, v := range changes {
		if v == absent {
			delete(fields, k)
			continue
		}
		fields[k] = v
	}
	b, err := json.Marshal(fields)
	if err != nil {
		t.Fatalf("marshal body: %v", err)
	}
	return b
}

func local(y int, mo time.Month, d, h, mi, s, ns int) time.Time {
	return time.Date(y, mo, d, h, mi, s, ns, time.UTC)
}

// wantErr is one expected FieldError. Field is empty for a global error.
// When hasRejected is set, RejectedValue must equal rejected.
type wantErr struct {
	field, code string
	rejected    any
	hasRejected bool
}

func fieldErr(field, code string) wantErr { return wantErr{field: field, code: code} }

func rejected(field, code string, value any) wantErr {
	return wantErr{field: field, code: code, rejected: value, hasRejected: true}
}

func globalErr(code string) wantErr { return wantErr{code: code} }

// checkErrors checks that err is a *ValidationError holding exactly the
// wanted errors (in any order), that every error is well formed, and that
// field errors come before global ones.
func checkErrors(t *testing.T, in Input, err error, want ...wantErr) {
	t.Helper()
	var verr *ValidationError
	if !errors.As(err, &verr) {
		t.Fatalf("error = %v (%T), want a *ValidationError", err, err)
	}
	if !reflect.DeepEqual(in, Input{}) {
		t.Errorf("input = %+v on error, want the zero Input", in)
	}
	checkWellFormed(t, verr)
	if len(verr.Errors) != len(want) {
		t.Errorf("got %d errors %v, want %d: %+v", len(verr.Errors), verr.Errors, len(want), want)
	}
	for _, w := range want {
		found := false
		for _, e := range verr.Errors {
			if e.Field != w.field || e.Code != w.code {
				continue
			}
			found = true
			if w.hasRejected && !reflect.DeepEqual(e.RejectedValue, w.rejected) {
				t.Errorf("%s %s: rejectedValue = %#v, want %#v", w.field, w.code, e.RejectedValue, w.rejected)
			}
		}
		if !found {
			t.Errorf("no error with field %q and code %q in %v", w.field, w.code, verr.Errors)
		}
	}
}

func checkWellFormed(t *testing.T, verr *ValidationError) {
	t.Helper()
	if len(verr.Errors) == 0 {
		t.Errorf("ValidationError without errors")
	}
	if verr.Error() == "" {
		t.Errorf("empty Error()")
	}
	global := false
	for i, e := range verr.Errors {
		if e.ObjectName != "eventDto" {
			t.Errorf("error %d (%s %s): objectName = %q, want eventDto", i, e.Field, e.Code, e.ObjectName)
		}
		if e.DefaultMessage == "" {
			t.Errorf("error %d (%s %s): empty defaultMessage", i, e.Field, e.Code)
		}
		if e.Code == "" {
			t.Errorf("error %d (%s): empty code", i, e.Field)
		}
		if e.Field == "" {
			global = true
		} else if global {
			t.Errorf("field error %d (%s %s) comes after a global error: %v", i, e.Field, e.Code, verr.Errors)
		}
	}
}

func TestDecodeValid(t *testing.T) {
	in, err := Decode(body(t, nil))
	if err != nil {
		t.Fatalf("Decode(valid) = %v", err)
	}
	want := Input{
		Name:                    "Spring",
		Description:             "REST API development with Spring",
		BeginEnrollmentDateTime: local(2026, 11, 1, 9, 0, 0, 0),
		CloseEnrollmentDateTime: local(2026, 11, 10, 18, 0, 0, 0),
		BeginEventDateTime:      local(2026, 11, 20, 10, 0, 0, 0),
		EndEventDateTime:        local(2026, 11, 25, 14, 21, 0, 0),
		Location:                "D2 Startup Factory",
		BasePrice:               100,
		MaxPrice:                200,
		LimitOfEnrollment:       100,
	}
	if !reflect.DeepEqual(in, want) {
		t.Fatalf("Decode(valid) =\n%+v\nwant\n%+v", in, want)
	}

	// Apply copies every input field, computes Offline and Free, and leaves
	// what a client may not set alone.
	e := Event{ID: 7, Status: Published, ManagerID: 3, Free: true}
	in.Apply(&e)
	wantEvent := Event{
		ID: 7, Name: want.Name, Description: want.Description,
		BeginEnrollmentDateTime: want.BeginEnrollmentDateTime,
		CloseEnrollmentDateTime: want.CloseEnrollmentDateTime,
		BeginEventDateTime:      want.BeginEventDateTime,
		EndEventDateTime:        want.EndEventDateTime,
		Location:                want.Location,
		BasePrice:               100, MaxPrice: 200, LimitOfEnrollment: 100,
		Offline: true, Free: false, Status: Published, ManagerID: 3,
	}
	if e != wantEvent {
		t.Fatalf("Apply =\n%+v\nwant\n%+v", e, wantEvent)
	}
}

func TestDecodeValidVariants(t *testing.T) {
	tests := []struct {
		name          string
		changes       map[string]any
		check         func(t *testing.T, in Input)
		offline, free bool
	}{
		{name: "all fields", offline: true, free: false},
		{name: "location empty", changes: map[string]any{"location": ""}, offline: false},
		{name: "location blank", changes: map[string]any{"location": " \t\r\n "}, offline: false},
		{name: "location null", changes: map[string]any{"location": nil}, offline: false},
		{name: "location absent", changes: map[string]any{"location": absent}, offline: false},
		{name: "location padded", changes: map[string]any{"location": "  Seoul "}, offline: true},
		{name: "both prices 0", changes: map[string]any{"basePrice": 0, "maxPrice": 0}, offline: true, free: true},
		{name: "prices absent", changes: map[string]any{"basePrice": absent, "maxPrice": absent}, offline: true, free: true},
		{name: "prices null", changes: map[string]any{"basePrice": nil, "maxPrice": nil, "limitOfEnrollment": nil}, offline: true, free: true,
			check: func(t *testing.T, in Input) {
				if in.BasePrice != 0 || in.MaxPrice != 0 || in.LimitOfEnrollment != 0 {
					t.Errorf("null integers = %d %d %d, want 0", in.BasePrice, in.MaxPrice, in.LimitOfEnrollment)
				}
			}},
		{name: "only maxPrice", changes: map[string]any{"basePrice": 0, "maxPrice": 10}, offline: true, free: false},
		{name: "only basePrice", changes: map[string]any{"basePrice": 10, "maxPrice": 0}, offline: true, free: false},
		{name: "basePrice above maxPrice 0", changes: map[string]any{"basePrice": 300, "maxPrice": 0}, offline: true,
			check: func(t *testing.T, in Input) {
				if in.BasePrice != 300 || in.MaxPrice != 0 {
					t.Errorf("prices = %d %d, want 300 0", in.BasePrice, in.MaxPrice)
				}
			}},
		{name: "basePrice equal maxPrice", changes: map[string]any{"basePrice": 200, "maxPrice": 200}, offline: true},
		{name: "largest int", changes: map[string]any{"basePrice": 2147483647, "maxPrice": 0, "limitOfEnrollment": 2147483647}, offline: true,
			check: func(t *testing.T, in Input) {
				if in.BasePrice != 2147483647 || in.LimitOfEnrollment != 2147483647 {
					t.Errorf("= %d %d, want 2147483647", in.BasePrice, in.LimitOfEnrollment)
				}
			}},
		{name: "integer 0 as written", changes: map[string]any{"limitOfEnrollment": json.RawMessage("0")}, offline: true},
		{name: "end equal to every other date-time", offline: true, changes: map[string]any{
			"beginEnrollmentDateTime": "2026-11-25T14:21:00", "closeEnrollmentDateTime": "2026-11-25T14:21:00",
			"beginEventDateTime": "2026-11-25T14:21:00", "endEventDateTime": "2026-11-25T14:21:00",
		}},
		{name: "enrollment closes after the event begins", offline: true, changes: map[string]any{
			"closeEnrollmentDateTime": "2026-11-24T00:00:00",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := Decode(body(t, tt.changes))
			if err != nil {
				t.Fatalf("Decode = %v, want no error", err)
			}
			if tt.check != nil {
				tt.check(t, in)
			}
			// Start from the opposite values so that Apply must compute both.
			e := Event{Offline: !tt.offline, Free: !tt.free}
			in.Apply(&e)
			if e.Offline != tt.offline || e.Free != tt.free {
				t.Errorf("Apply: offline, free = %v, %v; want %v, %v", e.Offline, e.Free, tt.offline, tt.free)
			}
		})
	}
}

func TestDecodeDateForms(t *testing.T) {
	tests := []struct {
		value string
		want  time.Time
	}{
		{"2026-11-25T14:21:00", local(2026, 11, 25, 14, 21, 0, 0)},
		{"2026-11-25T14:21", local(2026, 11, 25, 14, 21, 0, 0)},
		{"2026-11-25T14:21:00.5", local(2026, 11, 25, 14, 21, 0, 500_000_000)},
		{"2026-11-25T14:21:07.123456789", local(2026, 11, 25, 14, 21, 7, 123456789)},
	}
	for _, tt := range tests {
		t.Run(tt.value, func(t *testing.T) {
			in, err := Decode(body(t, map[string]any{"endEventDateTime": tt.value}))
			if err != nil {
				t.Fatalf("Decode = %v", err)
			}
			if !in.EndEventDateTime.Equal(tt.want) {
				t.Errorf("endEventDateTime = %v, want %v", in.EndEventDateTime, tt.want)
			}
			in, err = Decode(body(t, map[string]any{"beginEnrollmentDateTime": tt.value, "endEventDateTime": "2026-12-31T23:59:59"}))
			if err != nil {
				t.Fatalf("Decode = %v", err)
			}
			if !in.BeginEnrollmentDateTime.Equal(tt.want) {
				t.Errorf("beginEnrollmentDateTime = %v, want %v", in.BeginEnrollmentDateTime, tt.want)
			}
		})
	}
}

func TestDecodeInvalid(t *testing.T) {
	tests := []struct {
		name    string
		changes map[string]any
		want    []wantErr
	}{
		// Required texts.
		{"name missing", map[string]any{"name": absent}, []wantErr{rejected("name", CodeNotEmpty, nil)}},
		{"name null", map[string]any{"name": nil}, []wantErr{rejected("name", CodeNotEmpty, nil)}},
		{"name empty", map[string]any{"name": ""}, []wantErr{rejected("name", CodeNotEmpty, "")}},
		{"name number", map[string]any{"name": 5}, []wantErr{rejected("name", CodeTypeMismatch, float64(5))}},
		{"name boolean", map[string]any{"name": true}, []wantErr{rejected("name", CodeTypeMismatch, true)}},
		{"name array", map[string]any{"name": []string{"a"}}, []wantErr{fieldErr("name", CodeTypeMismatch)}},
		{"name object", map[string]any{"name": map[string]any{"a": 1}}, []wantErr{fieldErr("name", CodeTypeMismatch)}},
		{"description missing", map[string]any{"description": absent}, []wantErr{rejected("description", CodeNotEmpty, nil)}},
		{"description null", map[string]any{"description": nil}, []wantErr{fieldErr("description", CodeNotEmpty)}},
		{"description empty", map[string]any{"description": ""}, []wantErr{rejected("description", CodeNotEmpty, "")}},
		{"description number", map[string]any{"description": 1}, []wantErr{rejected("description", CodeTypeMismatch, float64(1))}},
		{"location number", map[string]any{"location": 5}, []wantErr{rejected("location", CodeTypeMismatch, float64(5))}},
		{"location object", map[string]any{"location": map[string]any{}}, []wantErr{fieldErr("location", CodeTypeMismatch)}},

		// Date-times.
		{"beginEnrollmentDateTime missing", map[string]any{"beginEnrollmentDateTime": absent}, []wantErr{rejected("beginEnrollmentDateTime", CodeNotNull, nil)}},
		{"closeEnrollmentDateTime missing", map[string]any{"closeEnrollmentDateTime": absent}, []wantErr{fieldErr("closeEnrollmentDateTime", CodeNotNull)}},
		{"beginEventDateTime missing", map[string]any{"beginEventDateTime": absent}, []wantErr{fieldErr("beginEventDateTime", CodeNotNull)}},
		{"endEventDateTime missing", map[string]any{"endEventDateTime": absent}, []wantErr{fieldErr("endEventDateTime", CodeNotNull)}},
		{"endEventDateTime null", map[string]any{"endEventDateTime": nil}, []wantErr{rejected("endEventDateTime", CodeNotNull, nil)}},
		{"date dd/mm/yyyy", map[string]any{"beginEventDateTime": "25/11/2026"}, []wantErr{rejected("beginEventDateTime", CodeTypeMismatch, "25/11/2026")}},
		{"date only", map[string]any{"beginEventDateTime": "2026-11-25"}, []wantErr{rejected("beginEventDateTime", CodeTypeMismatch, "2026-11-25")}},
		{"date with space", map[string]any{"beginEventDateTime": "2026-11-25 14:21:00"}, []wantErr{fieldErr("beginEventDateTime", CodeTypeMismatch)}},
		{"date with zone", map[string]any{"beginEventDateTime": "2026-11-25T14:21:00+09:00"}, []wantErr{fieldErr("beginEventDateTime", CodeTypeMismatch)}},
		{"date with Z", map[string]any{"beginEventDateTime": "2026-11-20T14:21:00Z"}, []wantErr{fieldErr("beginEventDateTime", CodeTypeMismatch)}},
		{"date out of range", map[string]any{"beginEventDateTime": "2026-02-30T10:00:00"}, []wantErr{fieldErr("beginEventDateTime", CodeTypeMismatch)}},
		{"date number", map[string]any{"closeEnrollmentDateTime": 20261125}, []wantErr{rejected("closeEnrollmentDateTime", CodeTypeMismatch, float64(20261125))}},
		{"date array", map[string]any{"closeEnrollmentDateTime": []int{2026, 11, 25, 14, 21}}, []wantErr{fieldErr("closeEnrollmentDateTime", CodeTypeMismatch)}},
		{"end before begin enrollment", map[string]any{
			"beginEnrollmentDateTime": "2026-11-26T00:00:00", "closeEnrollmentDateTime": "2026-11-01T00:00:00", "beginEventDateTime": "2026-11-01T00:00:00",
		}, []wantErr{rejected("endEventDateTime", CodeWrongValue, "2026-11-25T14:21:00")}},
		{"end before close enrollment", map[string]any{"closeEnrollmentDateTime": "2026-11-25T14:21:01"},
			[]wantErr{rejected("endEventDateTime", CodeWrongValue, "2026-11-25T14:21:00")}},
		{"end before begin event", map[string]any{"beginEventDateTime": "2026-11-25T14:21:00.001"},
			[]wantErr{rejected("endEventDateTime", CodeWrongValue, "2026-11-25T14:21:00")}},
		{"end before all three", map[string]any{"endEventDateTime": "2026-10-01T00:00"},
			[]wantErr{rejected("endEventDateTime", CodeWrongValue, "2026-10-01T00:00")}},

		// Integers.
		{"basePrice negative", map[string]any{"basePrice": -1}, []wantErr{rejected("basePrice", CodeMin, float64(-1))}},
		{"maxPrice negative", map[string]any{"maxPrice": -200}, []wantErr{rejected("maxPrice", CodeMin, float64(-200))}},
		{"limitOfEnrollment negative", map[string]any{"limitOfEnrollment": -5}, []wantErr{rejected("limitOfEnrollment", CodeMin, float64(-5))}},
		{"limitOfEnrollment below int range", map[string]any{"limitOfEnrollment": int64(-2147483649)}, []wantErr{fieldErr("limitOfEnrollment", CodeTypeMismatch)}},
		{"basePrice 1.5", map[string]any{"basePrice": json.RawMessage("1.5")}, []wantErr{rejected("basePrice", CodeTypeMismatch, 1.5)}},
		{"maxPrice 1e3", map[string]any{"maxPrice": json.RawMessage("1e3")}, []wantErr{rejected("maxPrice", CodeTypeMismatch, float64(1000))}},
		{"limitOfEnrollment 1.0", map[string]any{"limitOfEnrollment": json.RawMessage("1.0")}, []wantErr{fieldErr("limitOfEnrollment", CodeTypeMismatch)}},
		{"limitOfEnrollment 2147483648", map[string]any{"limitOfEnrollment": int64(2147483648)}, []wantErr{rejected("limitOfEnrollment", CodeTypeMismatch, float64(2147483648))}},
		{"basePrice 2147483648", map[string]any{"basePrice": int64(2147483648), "maxPrice": 0}, []wantErr{fieldErr("basePrice", CodeTypeMismatch)}},
		{"maxPrice beyond int64", map[string]any{"maxPrice": json.RawMessage("99999999999999999999")}, []wantErr{fieldErr("maxPrice", CodeTypeMismatch)}},
		{"basePrice word", map[string]any{"basePrice": "abc"}, []wantErr{rejected("basePrice", CodeTypeMismatch, "abc")}},
		{"basePrice boolean", map[string]any{"basePrice": true}, []wantErr{rejected("basePrice", CodeTypeMismatch, true)}},
		{"basePrice object", map[string]any{"basePrice": map[string]any{}}, []wantErr{fieldErr("basePrice", CodeTypeMismatch)}},

		// Properties a client may not set, or that do not exist.
		{"id", map[string]any{"id": 1}, []wantErr{rejected("id", CodeNotAllowed, float64(1))}},
		{"id null", map[string]any{"id": nil}, []wantErr{rejected("id", CodeNotAllowed, nil)}},
		{"offline", map[string]any{"offline": true}, []wantErr{rejected("offline", CodeNotAllowed, true)}},
		{"free", map[string]any{"free": false}, []wantErr{rejected("free", CodeNotAllowed, false)}},
		{"eventStatus", map[string]any{"eventStatus": "PUBLISHED"}, []wantErr{rejected("eventStatus", CodeNotAllowed, "PUBLISHED")}},
		{"manager", map[string]any{"manager": map[string]any{"id": 1}}, []wantErr{rejected("manager", CodeNotAllowed, map[string]any{"id": float64(1)})}},
		{"unknown", map[string]any{"color": "red"}, []wantErr{rejected("color", CodeNotAllowed, "red")}},
		{"wrong case", map[string]any{"Name": "x"}, []wantErr{rejected("Name", CodeNotAllowed, "x")}},
		{"several", map[string]any{"id": 1, "free": true, "manager": map[string]any{"id": 2}, "zzz": []any{1.0}}, []wantErr{
			rejected("id", CodeNotAllowed, float64(1)), rejected("free", CodeNotAllowed, true),
			rejected("manager", CodeNotAllowed, map[string]any{"id": float64(2)}), rejected("zzz", CodeNotAllowed, []any{float64(1)}),
		}},

		// Prices together (global error).
		{"basePrice above maxPrice", map[string]any{"basePrice": 300, "maxPrice": 200}, []wantErr{rejected("", CodeWrongPrices, nil)}},
		{"basePrice one above maxPrice", map[string]any{"basePrice": 2, "maxPrice": 1}, []wantErr{globalErr(CodeWrongPrices)}},

		// Several at once: field errors, then the global error.
		{"empty object", map[string]any{
			"name": absent, "description": absent, "beginEnrollmentDateTime": absent, "closeEnrollmentDateTime": absent,
			"beginEventDateTime": absent, "endEventDateTime": absent, "location": absent, "basePrice": absent,
			"maxPrice": absent, "limitOfEnrollment": absent,
		}, []wantErr{
			fieldErr("name", CodeNotEmpty), fieldErr("description", CodeNotEmpty),
			fieldErr("beginEnrollmentDateTime", CodeNotNull), fieldErr("closeEnrollmentDateTime", CodeNotNull),
			fieldErr("beginEventDateTime", CodeNotNull), fieldErr("endEventDateTime", CodeNotNull),
		}},
		{"field and global errors", map[string]any{
			"name": "", "basePrice": 300, "maxPrice": 200, "id": 9, "endEventDateTime": "2026-01-01T00:00:00", "limitOfEnrollment": -1,
		}, []wantErr{
			fieldErr("name", CodeNotEmpty), fieldErr("limitOfEnrollment", CodeMin), fieldErr("id", CodeNotAllowed),
			fieldErr("endEventDateTime", CodeWrongValue), globalErr(CodeWrongPrices),
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := Decode(body(t, tt.changes))
			checkErrors(t, in, err, tt.want...)
		})
	}
}

func TestDecodeNotAnObject(t *testing.T) {
	valid := string(body(t, nil))
	for _, tt := range []struct{ name, body string }{
		{"array", `[]`}, {"array of object", `[{}]`}, {"string", `"x"`}, {"number", `1`}, {"boolean", `true`},
		{"null", `null`}, {"two objects", `{} {}`}, {"two objects unspaced", `{}{}`}, {"unclosed", `{`},
		{"cut", `{"name":`}, {"empty", ``}, {"white space", "  \n"}, {"object then word", `{} x`},
		{"two valid objects", valid + " " + valid}, {"valid then number", valid + " 1"},
		{"valid without closing brace", valid[:len(valid)-1]},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in, err := Decode([]byte(tt.body))
			checkErrors(t, in, err, rejected("", CodeNotAnObject, nil))
		})
	}
}

// A number written as a JSON string is not a number: Java's int rejects "3"
// with typeMismatch, and so must Decode.
func TestDecodeIntegerAsString(t *testing.T) {
	tests := []struct {
		name    string
		changes map[string]any
		want    wantErr
	}{
		{"basePrice \"3\"", map[string]any{"basePrice": "3"}, rejected("basePrice", CodeTypeMismatch, "3")},
		{"maxPrice \"300\"", map[string]any{"maxPrice": "300"}, rejected("maxPrice", CodeTypeMismatch, "300")},
		{"limitOfEnrollment \"10\"", map[string]any{"limitOfEnrollment": "10"}, rejected("limitOfEnrollment", CodeTypeMismatch, "10")},
		{"maxPrice \"-1\"", map[string]any{"maxPrice": "-1"}, rejected("maxPrice", CodeTypeMismatch, "-1")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in, err := Decode(body(t, tt.changes))
			checkErrors(t, in, err, tt.want)
		})
	}
}

// A body with a stray closing bracket or brace after the object is not one
// JSON object.
func TestDecodeTrailingCloser(t *testing.T) {
	valid := string(body(t, nil))
	for _, tt := range []struct{ name, body string }{
		{"empty then ]", `{}]`}, {"empty then }", `{}}`}, {"valid then ]", valid + "]"}, {"valid then }", valid + " }"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in, err := Decode([]byte(tt.body))
			checkErrors(t, in, err, globalErr(CodeNotAnObject))
		})
	}
}

// "Blank" as Java's String.isBlank (the original's check) and Go's
// strings.TrimSpace mean it: any white space, not only space, tab, CR and LF.
func TestApplyLocationOfOtherWhiteSpaceIsOnline(t *testing.T) {
	for _, loc := range []string{"\f", "\v", " \f ", "\u2003", "\u3000"} {
		in, err := Decode(body(t, map[string]any{"location": loc}))
		if err != nil {
			t.Fatalf("Decode(location %q) = %v", loc, err)
		}
		var e Event
		in.Apply(&e)
		if e.Offline {
			t.Errorf("location %q: offline = true, want false (blank)", loc)
		}
	}
}

// Texts have the widths of the original service's columns: name and
// location 255 characters, description 4,000, counted in characters, not
// bytes. A text too long is refused with code Size; its value is not
// repeated, since it may be as large as the body.
func TestDecodeTextLengths(t *testing.T) {
	long := func(n int, r string) string { return strings.Repeat(r, n) }
	for _, tt := range []struct {
		name    string
		changes map[string]any
		want    []wantErr
	}{
		{"longest name", map[string]any{"name": long(MaxNameLen, "é")}, nil},
		{"longest location", map[string]any{"location": long(MaxLocationLen, "x")}, nil},
		{"longest description", map[string]any{"description": long(MaxDescriptionLen, "日")}, nil},
		{"name too long", map[string]any{"name": long(MaxNameLen+1, "x")}, []wantErr{rejected("name", CodeSize, nil)}},
		{"location too long", map[string]any{"location": long(MaxLocationLen+1, "é")}, []wantErr{rejected("location", CodeSize, nil)}},
		{"description too long", map[string]any{"description": long(MaxDescriptionLen+1, "x")}, []wantErr{rejected("description", CodeSize, nil)}},
		{"all too long", map[string]any{"name": long(300_000, "x"), "description": long(700_000, "x"), "location": long(256, "x")},
			[]wantErr{fieldErr("name", CodeSize), fieldErr("description", CodeSize), fieldErr("location", CodeSize)}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in, err := Decode(body(t, tt.changes))
			if tt.want == nil {
				if err != nil {
					t.Fatalf("Decode = %v", err)
				}
				return
			}
			checkErrors(t, in, err, tt.want...)
			var verr *ValidationError
			errors.As(err, &verr)
			for _, e := range verr.Errors {
				if !strings.Contains(e.DefaultMessage, "at most") {
					t.Errorf("%s: message %q does not say the limit", e.Field, e.DefaultMessage)
				}
			}
		})
	}
}
