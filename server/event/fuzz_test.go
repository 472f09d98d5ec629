package event

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"
	"time"
)

// A short run, as make test could do it:
//
//	go test -run '^$' -fuzz '^FuzzDecode$' -fuzztime 3s ./server/event

// validationCodes reads the Code* constants of input.go, so that the fuzz
// target follows the file when a code is added: it returns each code's value
// and whether its comment marks it "(global)", that is an error with no
// field.
func validationCodes(f *testing.F) map[string]bool {
	f.Helper()
	file, err := parser.ParseFile(token.NewFileSet(), "input.go", nil, parser.ParseComments)
	if err != nil {
		f.Fatal(err)
	}
	codes := map[string]bool{}
	for _, decl := range file.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.CONST {
			continue
		}
		for _, spec := range gen.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if !strings.HasPrefix(name.Name, "Code") || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				code, err := strconv.Unquote(lit.Value)
				if err != nil {
					f.Fatal(err)
				}
				codes[code] = strings.Contains(vs.Comment.Text(), "(global)")
			}
		}
	}
	for _, want := range []string{CodeNotEmpty, CodeNotNull, CodeMin, CodeTypeMismatch, CodeNotAllowed, CodeWrongValue, CodeWrongPrices, CodeNotAnObject} {
		if _, ok := codes[want]; !ok {
			f.Fatalf("input.go: code %q not found among the Code* constants %v", want, codes)
		}
	}
	return codes
}

// fuzzValidBody is a seed that Decode accepts, with both date layouts.
const fuzzValidBody = `{"name":"Spring","description":"REST API","beginEnrollmentDateTime":"2026-11-01T09:00:00",` +
	`"closeEnrollmentDateTime":"2026-11-10T18:00:00","beginEventDateTime":"2026-11-20T10:00",` +
	`"endEventDateTime":"2026-11-25T14:21:00.5","location":"D2","basePrice":100,"maxPrice":200,"limitOfEnrollment":100}`

// The success branch of FuzzDecode is reachable from its seeds.
func TestFuzzDecodeValidSeed(t *testing.T) {
	if _, err := Decode([]byte(fuzzValidBody)); err != nil {
		t.Fatal(err)
	}
}

// FuzzDecode checks Decode on any body:
//   - it never panics;
//   - it returns an Input or a *ValidationError, never both, never another
//     error;
//   - a ValidationError has at least one FieldError, each with ObjectName
//     "eventDto", a code among the Code* constants of input.go and a
//     DefaultMessage; a code documented "(global)" has no field, any other
//     code has one; field errors come before global ones; the errors can be
//     written as JSON (the server sends them);
//   - an Input has a name and a description, and Apply gives an Event whose
//     Offline is "location is not blank", whose Free is "both prices are
//     0", whose end is not before the three other date-times, whose base
//     price is at most its maximum price when that is above 0, and whose
//     three numbers are not negative (and fit a Java int).
func FuzzDecode(f *testing.F) {
	f.Add([]byte(fuzzValidBody))
	f.Add([]byte(`{}`))
	f.Add([]byte(`[]`))
	f.Add([]byte(`null`))
	f.Add([]byte(``))
	codes := validationCodes(f)
	f.Fuzz(func(t *testing.T, body []byte) {
		in, err := Decode(body)
		if err != nil {
			verr, ok := err.(*ValidationError)
			if !ok {
				t.Fatalf("Decode(%q): error %T %v, want *ValidationError", body, err, err)
			}
			if in != (Input{}) {
				t.Fatalf("Decode(%q) failed (%v) but returned %+v", body, err, in)
			}
			if len(verr.Errors) == 0 {
				t.Fatalf("Decode(%q): a ValidationError without errors", body)
			}
			global := false
			for i, fe := range verr.Errors {
				isGlobal, known := codes[fe.Code]
				switch {
				case fe.ObjectName != ObjectName:
					t.Fatalf("Decode(%q): error %d %+v: objectName %q, want %q", body, i, fe, fe.ObjectName, ObjectName)
				case !known:
					t.Fatalf("Decode(%q): error %d %+v: code %q is not one of input.go", body, i, fe, fe.Code)
				case strings.TrimSpace(fe.DefaultMessage) == "":
					t.Fatalf("Decode(%q): error %d %+v has no message", body, i, fe)
				case isGlobal != (fe.Field == ""):
					t.Fatalf("Decode(%q): error %d %+v: code %q global=%v but field %q", body, i, fe, fe.Code, isGlobal, fe.Field)
				case fe.Field != "" && global:
					t.Fatalf("Decode(%q): field error %d %+v comes after a global error: %+v", body, i, fe, verr.Errors)
				}
				global = global || fe.Field == ""
			}
			if _, merr := json.Marshal(verr.Errors); merr != nil {
				t.Fatalf("Decode(%q): the errors cannot be written as JSON: %v", body, merr)
			}
			return
		}
		if in.Name == "" || in.Description == "" {
			t.Fatalf("Decode(%q) accepted an empty name or description: %+v", body, in)
		}
		var e Event
		in.Apply(&e)
		if want := strings.TrimSpace(e.Location) != ""; e.Offline != want {
			t.Fatalf("Decode(%q): location %q gives offline %v", body, e.Location, e.Offline)
		}
		if want := e.BasePrice == 0 && e.MaxPrice == 0; e.Free != want {
			t.Fatalf("Decode(%q): prices %d, %d give free %v", body, e.BasePrice, e.MaxPrice, e.Free)
		}
		for name, other := range map[string]time.Time{
			"beginEnrollmentDateTime": e.BeginEnrollmentDateTime,
			"closeEnrollmentDateTime": e.CloseEnrollmentDateTime,
			"beginEventDateTime":      e.BeginEventDateTime,
		} {
			if e.EndEventDateTime.Before(other) {
				t.Fatalf("Decode(%q): end %v is before %s %v", body, e.EndEventDateTime, name, other)
			}
		}
		if e.MaxPrice > 0 && e.BasePrice > e.MaxPrice {
			t.Fatalf("Decode(%q): basePrice %d above maxPrice %d", body, e.BasePrice, e.MaxPrice)
		}
		for name, n := range map[string]int{"basePrice": e.BasePrice, "maxPrice": e.MaxPrice, "limitOfEnrollment": e.LimitOfEnrollment} {
			if n < 0 || n > 1<<31-1 {
				t.Fatalf("Decode(%q): %s %d is not from 0 to 2^31-1", body, name, n)
			}
		}
	})
}
