package repro

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"eventsvc/internal/redact"
)

// How a script writes a value: nothing a target chose is ever read by the
// shell as anything but data, whatever bytes it holds. A value is cut into
// segments, its text as it is and the expressions of the variables that
// replace parts of it (the run's credentials, the tokens and addresses the
// answers give at replay time); the text is masked, then quoted. Values
// that hold only printable text are written in double quotes, every
// character the shell reads there escaped; others through printf, with
// their bytes as octal escapes, so that the script itself is plain text.

// segment is part of a value as a script writes it: text as it is, or the
// expression of a variable (${NAME}).
type segment struct {
	text string
	expr bool
}

// split cuts v into text and the expressions of the values of subs it
// holds, the longest first; the text is masked. A value shorter than
// redact.MinLength (the demo password "user") is replaced only when it is
// the whole of v: inside a longer text it is as likely a part of another
// word ("username") as itself.
func (s Script) split(v string, subs []Var) []segment {
	whole := v
	subs = slices.Clone(subs)
	sort.SliceStable(subs, func(i, j int) bool { return len(subs[i].Value) > len(subs[j].Value) })
	var out []segment
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			out = append(out, segment{text: s.mask(text.String())})
			text.Reset()
		}
	}
	for len(v) > 0 {
		matched := false
		for _, sb := range subs {
			if sb.Value == "" || len(sb.Value) < redact.MinLength && sb.Value != whole {
				continue
			}
			if strings.HasPrefix(v, sb.Value) {
				flush()
				out = append(out, segment{text: sb.Name, expr: true})
				v = v[len(sb.Value):]
				matched = true
				break
			}
		}
		if !matched {
			_, n := utf8.DecodeRuneInString(v)
			text.WriteString(v[:n])
			v = v[n:]
		}
	}
	flush()
	return out
}

// mask masks the secrets the Redactor knows in text.
func (s Script) mask(text string) string {
	if s.Redactor == nil {
		return text
	}
	return s.Redactor.String(text)
}

// text is literal text, written as it is.
func text(v string) []segment { return []segment{{text: v}} }

// word is the shell word of segs: in double quotes when its text is
// printable, else the output of printf. segs must hold no NUL and not
// end with a line break (printf's output is read by $(…), which drops
// them); a body, which may, is piped from printf (printfCommand).
func word(segs ...[]segment) string {
	all := slices.Concat(segs...)
	if !printable(all) {
		return `"$(` + printfCommand(all) + `)"`
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, sg := range all {
		if sg.expr {
			b.WriteString(sg.text)
		} else {
			b.WriteString(inDoubleQuotes(sg.text))
		}
	}
	b.WriteByte('"')
	return b.String()
}

// inDoubleQuotes is printable text as it is written between double
// quotes: every character the shell reads there escaped.
func inDoubleQuotes(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		switch c := v[i]; c {
		case '"', '\\', '$', '`':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// printfCommand is a printf command that writes segs: the text in its
// format, in single quotes, every byte that is not printable ASCII as an
// octal escape, and every expression as an argument of its own, in double
// quotes.
func printfCommand(segs []segment) string {
	var format strings.Builder
	var args []string
	for _, sg := range segs {
		if sg.expr {
			format.WriteString("%s")
			args = append(args, `"`+sg.text+`"`)
			continue
		}
		for i := 0; i < len(sg.text); i++ {
			switch c := sg.text[i]; {
			case c == '\'':
				format.WriteString(`'\''`)
			case c == '%':
				format.WriteString("%%")
			case c == '\\':
				format.WriteString(`\\`)
			case c < 0x20 || c >= 0x7f:
				fmt.Fprintf(&format, `\%03o`, c)
			default:
				format.WriteByte(c)
			}
		}
	}
	return strings.Join(append([]string{"printf", "'" + format.String() + "'"}, args...), " ")
}

// printable reports whether the text of segs is UTF-8 without a control
// character but tab and line feed: text a script may hold as it is.
func printable(segs []segment) bool {
	for _, sg := range segs {
		if sg.expr {
			continue
		}
		if !utf8.ValidString(sg.text) {
			return false
		}
		for _, r := range sg.text {
			if unicode.IsControl(r) && r != '\t' && r != '\n' {
				return false
			}
		}
	}
	return true
}

// quote is v, text without NUL, as a single-quoted shell word.
func quote(v string) string {
	return "'" + strings.ReplaceAll(v, "'", `'\''`) + "'"
}

// comment is v as the text of a comment line: control characters and
// bytes that are not UTF-8, a line break among them, written as Go
// escapes, so that v cannot end the comment.
func comment(v string) string {
	var b strings.Builder
	for len(v) > 0 {
		r, n := utf8.DecodeRuneInString(v)
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, v[0])
		case unicode.IsControl(r):
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteString(v[:n])
		}
		v = v[n:]
	}
	return b.String()
}
