package reporttest

import (
	"fmt"
	"testing"
)

// recorder is a testing.TB that keeps what its Errorf said.
type recorder struct {
	testing.TB
	errors []string
}

func (r *recorder) Helper() {}

func (r *recorder) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// TestCheckHTMLJudgesElementsNotText: markup a target sent, escaped as
// text, is no element; a script, a link, a src attribute, an event
// handler and a style that loads are.
func TestCheckHTMLJudgesElementsNotText(t *testing.T) {
	for page, bad := range map[string]bool{
		`<p>name: &lt;img src=x onerror=alert(1)&gt; url( @import</p><style>p{color:red}</style>`: false,
		`<p>x</p><script>alert(1)</script>`:                        true,
		`<link rel="stylesheet" href="https://cdn.example/a.css">`: true,
		`<img src="https://example.org/x.png">`:                    true,
		`<p onclick="x()">x</p>`:                                   true,
		`<style>@import "https://cdn.example/a.css";</style>`:      true,
		`<p style="background:url(https://example.org/x)">x</p>`:   true,
		`<img srcset="https://example.org/x.png 2x">`:              true,
		`<iframe></iframe>`:                                        true,
		`<meta http-equiv="refresh" content="0;url=https://x">`:    true,
		`<svg><image href="https://example.org/x.png"/></svg>`:     true,
		`<a href="#rules">rules</a>`:                               false,
	} {
		r := &recorder{TB: t}
		CheckHTML(r, page)
		if got := len(r.errors) > 0; got != bad {
			t.Errorf("CheckHTML(%s) found %v, want a fault: %v", page, r.errors, bad)
		}
	}
}
