package redact

import (
	"bytes"
	"encoding/base64"
	"net/url"
	"sort"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// minRun is the shortest run of base64 characters masked as the sign of a
// secret. A secret of MinLength bytes gives runs of 7 or 8 characters
// (42 or 48 bits, about as many as its own 6 characters carry, so that a
// run is no likelier than the secret itself to turn up by chance); the
// runs of 4 or 5 that a secret of 4 bytes would give match one position
// in 17 million (64^4) of any other base64, which long tokens and bodies
// reach.
const minRun = 7

// forms are the strings that show a secret in text once the text is
// decoded (views): the secret, the secret with its spaces written as "+"
// (form-encoding, the rest of it decoded by the percent view), and the
// base64 of the secret and of its form-encoded form (RFC 6749 §2.3.1: the
// Basic credential) in both alphabets: whole, and as the runs of
// characters that encode nothing but the secret's bytes whatever comes
// before and after them, for each of the three places the secret can
// start at in a group of three bytes.
func forms(secret string) []string {
	out := []string{secret}
	if strings.Contains(secret, " ") {
		out = append(out, strings.ReplaceAll(secret, " ", "+"))
	}
	for _, src := range []string{secret, url.QueryEscape(secret)} {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding} {
			whole := enc.EncodeToString([]byte(src))
			out = append(out, whole, strings.TrimRight(whole, "="))
			for k := range 3 {
				if run := base64Run(enc, src, k); len(run) >= minRun {
					out = append(out, run)
				}
			}
		}
	}
	return out
}

// base64Run is the run of characters that encodes only bytes of s in the
// base64 of a stream where s starts k bytes (0, 1 or 2) into a group of
// three: the characters whose 6 bits lie wholly inside s.
func base64Run(enc *base64.Encoding, s string, k int) string {
	stream := make([]byte, k+len(s))
	copy(stream[k:], s)
	encoded := enc.EncodeToString(stream)
	first := (8*k + 5) / 6         // the first character that starts inside s
	last := (8*(k+len(s)) - 6) / 6 // the last one that ends inside it
	if last < first || last >= len(encoded) {
		return ""
	}
	return encoded[first : last+1]
}

// view is a text decoded one way: the bytes of its parent, the text it
// was decoded from, with the escapes that marks tell of decoded. The
// original text is the view with no parent.
type view struct {
	b      []byte
	parent *view
	marks  []mark // in order
}

// mark is an escape decoded: b[at:at+n] stands for parent.b[from:to].
type mark struct{ at, n, from, to int }

// origin is the span of the original text that b[i] comes from.
func (v *view) origin(i int) (int, int) {
	if v.parent == nil {
		return i, i + 1
	}
	k := sort.Search(len(v.marks), func(k int) bool { return v.marks[k].at > i }) - 1
	if k < 0 {
		return v.parent.origin(i)
	}
	m := v.marks[k]
	if i < m.at+m.n {
		return v.parent.span(m.from, m.to)
	}
	return v.parent.origin(m.to + i - (m.at + m.n))
}

// span is the span of the original text that b[i:j] comes from.
func (v *view) span(i, j int) (int, int) {
	from, _ := v.origin(i)
	_, to := v.origin(j - 1)
	return from, to
}

// decoder decodes the escape at the start of b: what it decodes to and
// how many bytes it takes, or 0 when b does not start with one.
type decoder struct {
	trigger byte // every escape starts with it
	decode  func(b []byte) (out []byte, n int)
}

// decoders are the escapes a secret's characters take in text: JSON's
// (\" \\ \/ \b \f \n \r \t and \uXXXX, surrogate pairs too, in any
// case), percent-encoding's (%XX in any case; "+" for a space is a form
// of the secret), and HTML's character references.
var decoders = []decoder{
	{'\\', jsonEscape},
	{'%', percentEscape},
	{'&', htmlReference},
}

// apply decodes every escape of d in v; ok is false when there was none.
func (v *view) apply(d decoder) (w *view, ok bool) {
	at := 0 // v.b[:at] is in w
	for i := 0; i < len(v.b); i++ {
		next := bytes.IndexByte(v.b[i:], d.trigger)
		if next < 0 {
			break
		}
		i += next
		out, n := d.decode(v.b[i:])
		if n == 0 {
			continue
		}
		if w == nil {
			w = &view{b: make([]byte, 0, len(v.b)), parent: v}
		}
		w.b = append(w.b, v.b[at:i]...)
		w.marks = append(w.marks, mark{at: len(w.b), n: len(out), from: i, to: i + n})
		w.b = append(w.b, out...)
		at, i = i+n, i+n-1
	}
	if w == nil {
		return nil, false
	}
	w.b = append(w.b, v.b[at:]...)
	return w, true
}

// eachView calls f with s decoded in every way and every pair of ways a
// secret is written in text (percent-encoded in a JSON string, JSON in a
// query…), s as it is first. It holds two decoded views at most at once.
func eachView(s string, f func(*view)) {
	raw := &view{b: []byte(s)}
	f(raw)
	for _, d := range decoders {
		v, ok := raw.apply(d)
		if !ok {
			continue
		}
		f(v)
		for _, d2 := range decoders {
			if d2.trigger == d.trigger {
				continue
			}
			if w, ok := v.apply(d2); ok {
				f(w)
			}
		}
	}
}

func hexValue(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// hex4 reads four hex digits.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		h, ok := hexValue(c)
		if !ok {
			return 0, false
		}
		r = r<<4 | rune(h)
	}
	return r, true
}

func jsonEscape(b []byte) ([]byte, int) {
	if len(b) < 2 {
		return nil, 0
	}
	if i := strings.IndexByte(`"\/bfnrt`, b[1]); i >= 0 {
		return []byte{"\"\\/\b\f\n\r\t"[i]}, 2
	}
	if b[1] != 'u' {
		return nil, 0
	}
	r, ok := hex4(b[2:])
	if !ok {
		return nil, 0
	}
	n := 6
	if utf16.IsSurrogate(r) {
		if len(b) < 12 || b[6] != '\\' || b[7] != 'u' {
			return nil, 0
		}
		low, ok := hex4(b[8:])
		if r = utf16.DecodeRune(r, low); !ok || r == utf8.RuneError {
			return nil, 0
		}
		n = 12
	}
	return utf8.AppendRune(nil, r), n
}

func percentEscape(b []byte) ([]byte, int) {
	if len(b) < 3 {
		return nil, 0
	}
	hi, ok1 := hexValue(b[1])
	lo, ok2 := hexValue(b[2])
	if !ok1 || !ok2 {
		return nil, 0
	}
	return []byte{hi<<4 | lo}, 3
}

var htmlNames = map[string]string{"amp": "&", "lt": "<", "gt": ">", "quot": `"`, "apos": "'", "sol": "/", "bsol": `\`, "percnt": "%", "plus": "+", "colon": ":"}

// htmlReference decodes &name; for the characters a secret is likely to
// hold, and &#N; and &#xH;.
func htmlReference(b []byte) ([]byte, int) {
	end := -1
	for i := 1; i < len(b) && i < 12; i++ {
		if b[i] == ';' {
			end = i
			break
		}
	}
	if end < 2 {
		return nil, 0
	}
	name := string(b[1:end])
	if v, ok := htmlNames[name]; ok {
		return []byte(v), end + 1
	}
	if name[0] != '#' || len(name) < 2 {
		return nil, 0
	}
	var r rune
	digits, base := name[1:], rune(10)
	if digits[0] == 'x' || digits[0] == 'X' {
		digits, base = digits[1:], 16
	}
	if digits == "" {
		return nil, 0
	}
	for i := 0; i < len(digits); i++ {
		h, ok := hexValue(digits[i])
		if !ok || rune(h) >= base {
			return nil, 0
		}
		r = r*base + rune(h)
	}
	if !utf8.ValidRune(r) {
		return nil, 0
	}
	return utf8.AppendRune(nil, r), end + 1
}
