package report

import (
	"fmt"
	"strings"

	"eventsvc/conformance/origin"
)

// foreignHeading introduces, in every report, the origins other than the
// target's that a run sent requests to (Report.Foreign).
const foreignHeading = "Credentials went to the target's origin only; requests to another origin went without them:"

// foreignText is one origin of Report.Foreign as every report says it:
// the origin, how many requests went there, and what led there, safe for
// a terminal (Visible): what led there names the target's paths.
func foreignText(f origin.Foreign) string {
	s := fmt.Sprintf("%s: %d request%s, without Authorization or cookies", f.Origin, f.Requests, plural(f.Requests))
	if len(f.Via) > 0 {
		s += " (" + strings.Join(f.Via, "; ") + ")"
	}
	return Visible(s)
}

// foreignTexts are the texts of rep's foreign origins.
func foreignTexts(rep *Report) []string {
	var out []string
	for _, f := range rep.Foreign {
		out = append(out, foreignText(f))
	}
	return out
}
