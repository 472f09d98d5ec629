package report

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Visible is s with everything a terminal would act on rather than show
// written out, so that text a target sent is read, never obeyed: the C0
// controls but newline and tab (carriage return too: it is how a line is
// overwritten) and DEL as \x1b, \x0d…; the C1 controls U+0080–U+009F as
// \u009b…; a byte that is not UTF-8 as \x9b; and the bidirectional
// overrides and isolates U+202A–U+202E and U+2066–U+2069, which reorder
// what is shown ("Trojan source"), as \u202e. Anything else, and a
// backslash, stays as it is.
func Visible(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1, r < 0x80 && unsafeRune(r):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unsafeRune(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// unsafeRune reports whether a terminal acts on r.
func unsafeRune(r rune) bool {
	switch {
	case r == '\n' || r == '\t':
		return false
	case r < 0x20 || r == 0x7f, 0x80 <= r && r <= 0x9f:
		return true
	case 0x202a <= r && r <= 0x202e, 0x2066 <= r && r <= 0x2069:
		return true
	}
	return false
}

func needsEscape(s string) bool {
	for _, r := range s {
		if r == utf8.RuneError || unsafeRune(r) {
			return true
		}
	}
	return false
}

// EscapeJSON writes, in JSON that encoding/json wrote, the characters a
// terminal acts on that encoding/json leaves as they are (DEL, the C1
// controls and the bidirectional overrides) as \u escapes: the document
// means the same, and printing it is safe. The JSON files of a run go
// through it.
func EscapeJSON(b []byte) []byte {
	if !needsEscape(string(b)) {
		return b
	}
	var out bytes.Buffer
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if unsafeRune(r) {
			fmt.Fprintf(&out, `\u%04x`, r)
		} else {
			out.Write(b[i : i+size])
		}
		i += size
	}
	return out.Bytes()
}
