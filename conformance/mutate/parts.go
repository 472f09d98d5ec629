package mutate

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// The catalogue is a matrix: the parts of a request (its rows) by the
// ways an operator varies a part (its columns). Every operator names the
// parts it varies and its way; Anatomy lists the parts of each kind of
// request the operators vary, and a test fails while a part has no
// operator, or an operator no source.

// Parts of a request.
const (
	PartMethod       = "method"
	PartPath         = "path"  // a segment of the address
	PartID           = "id"    // the event's id in its address
	PartQuery        = "query" // a parameter of the query, or the query itself
	PartHeader       = "header"
	PartAccessToken  = "access token"
	PartRefreshToken = "refresh token"
	PartClientID     = "client id"
	PartClientSecret = "client secret"
	PartUsername     = "username"
	PartPassword     = "password"
	PartFormParam    = "form parameter" // a parameter of the token endpoint's form
	PartBody         = "body"           // the body as a whole: its media type
	PartBodyField    = "body field"     // a field of a JSON body
)

// Ways an operator varies a part: the columns of the matrix.
const (
	// BySpelling writes the same value otherwise: case, encodings,
	// padding, leading zeros, a sign, dot segments.
	BySpelling = "spelling"
	// ByMultiplicity drops the part, repeats it, or adds one nobody sent.
	ByMultiplicity = "multiplicity"
	// ByType writes a value of another type: a number, a text, null, an
	// array, an object; a body of another media type.
	ByType = "type"
	// ByLength writes a value at and past the lengths stores commonly
	// bound.
	ByLength = "length"
	// ByValue writes another value: a near-miss, another caller's, a
	// bound, another method.
	ByValue = "value"
	// ByPlace moves the part to everywhere else a framework reads it.
	ByPlace = "place"
)

// Ways are every way, in the order of the matrix's columns.
var Ways = []string{BySpelling, ByMultiplicity, ByType, ByLength, ByValue, ByPlace}

// Anatomy is, of each kind of request the operators vary (OnWrite…),
// the parts it has that a target may read: the rows of the matrix. The
// method of a creation is not among them: another method at the list's
// address, on a target that takes it without a token, could change every
// caller's events, where the method of an update is varied at the run's
// own event.
var Anatomy = map[string][]string{
	OnWrite:   {PartPath, PartQuery, PartHeader, PartAccessToken, PartBodyField},
	OnUpdate:  {PartMethod, PartPath, PartID, PartQuery, PartHeader, PartAccessToken, PartBodyField},
	OnGrant:   {PartMethod, PartQuery, PartClientID, PartClientSecret, PartUsername, PartPassword, PartFormParam, PartBody},
	OnRefresh: {PartRefreshToken, PartFormParam},
	OnList:    {PartQuery},
}

// Kinds are every kind of request of Anatomy, in the order the
// documentation lists them.
var Kinds = []string{OnWrite, OnUpdate, OnGrant, OnRefresh, OnList}

// Matrix is the catalogue as its matrix, in Markdown: for each kind of
// request, a row for each of its parts (Anatomy) and a column for each
// way, each cell the operators that vary that part that way.
func Matrix() string {
	var b strings.Builder
	for _, kind := range Kinds {
		fmt.Fprintf(&b, "#### %s\n\n| part | %s |\n|---|%s\n", kind, strings.Join(Ways, " | "), strings.Repeat("---|", len(Ways)))
		for _, part := range Anatomy[kind] {
			fmt.Fprintf(&b, "| %s |", part)
			for _, way := range Ways {
				var names []string
				for _, op := range catalogue {
					if op.On == kind && op.Way == way && slices.Contains(op.Parts, part) {
						names = append(names, op.Name)
					}
				}
				fmt.Fprintf(&b, " %s |", strings.Join(names, "; "))
			}
			b.WriteString("\n")
		}
		b.WriteString("\n")
		for _, part := range slices.Sorted(maps.Keys(Unvaried[kind])) {
			fmt.Fprintf(&b, "- Not varied, the %s: %s.\n", part, Unvaried[kind][part])
		}
		if len(Unvaried[kind]) > 0 {
			b.WriteString("\n")
		}
	}
	return b.String()
}
