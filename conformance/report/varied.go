package report

import (
	"fmt"
	"strings"
)

// Varied is one operator of the mutator's catalogue (package mutate) as
// an exploration used it: how many of its variants went out, or why
// none did. A report says what was varied as it says what was checked.
type Varied struct {
	Operator string `json:"operator"`
	Family   string `json:"family"`
	// Sent is how many of its variants the run sent.
	Sent int `json:"sent"`
	// Reason says why none was sent: the run was read-only, the
	// operator is for -ref runs alone, the budget of failed logins or of
	// events was spent, no event of the run to update, or the run's
	// budget of actions and time ran out first. Empty when one was.
	Reason string `json:"reason,omitempty"`
	// NotSent names, of an operator whose variants a budget draws from
	// (the near-misses of the grant's credentials), each variant the run
	// left unsent, NotSentReason why, and Variants how many it has for
	// the run's requests.
	NotSent       []string `json:"notSent,omitempty"`
	NotSentReason string   `json:"notSentReason,omitempty"`
	Variants      int      `json:"variants,omitempty"`
}

// Unsent returns the operators of varied that sent nothing, and how many
// for each reason, in the order the reasons first come.
func Unsent(varied []Varied) (n int, reasons []string, counts map[string]int) {
	counts = map[string]int{}
	for _, v := range varied {
		if v.Sent > 0 {
			continue
		}
		n++
		if counts[v.Reason] == 0 {
			reasons = append(reasons, v.Reason)
		}
		counts[v.Reason]++
	}
	return n, reasons, counts
}

// variedText is the console's line of what an exploration varied, ""
// when it varied nothing it could report: "Varied: 50 of 58 operators
// of the catalogue sent; not sent: 6 (read-only), 2 (-ref only); \"a
// near-miss of a credential\": 9 of its 12 variants not sent (the
// failed-login budget)".
func variedText(varied []Varied) string {
	if len(varied) == 0 {
		return ""
	}
	n, reasons, counts := Unsent(varied)
	text := fmt.Sprintf("Varied: %d of %d operators of the catalogue sent", len(varied)-n, len(varied))
	if n > 0 {
		parts := make([]string, 0, len(reasons))
		for _, r := range reasons {
			parts = append(parts, fmt.Sprintf("%d (%s)", counts[r], r))
		}
		text += "; not sent: " + strings.Join(parts, ", ")
	}
	for _, v := range varied {
		if len(v.NotSent) > 0 {
			text += fmt.Sprintf("; %q: %d of its %d variants not sent (%s)", v.Operator, len(v.NotSent), v.Variants, v.NotSentReason)
		}
	}
	return text
}

// unsentText is what the closing line says of the operators an
// exploration did not send, and of the variants a budget left unsent:
// "" when it sent them all, or varied none.
func unsentText(varied []Varied) string {
	n, _, _ := Unsent(varied)
	text := ""
	if n > 0 {
		text = fmt.Sprintf("; %d of %d operators not sent", n, len(varied))
	}
	for _, v := range varied {
		if len(v.NotSent) > 0 {
			text += fmt.Sprintf("; %d of %d variants of %q not sent", len(v.NotSent), v.Variants, v.Operator)
		}
	}
	return text
}
