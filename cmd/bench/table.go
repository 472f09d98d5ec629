package main

import (
	"fmt"
	"strings"
)

// tableLine is one line of the table bench prints.
type tableLine struct{ name, a, b, ratio, goal, verdict string }

// verdict says whether ratio meets goal.
func verdict(ratio, goal float64) string {
	if ratio >= goal {
		return "met"
	}
	return "MISSED"
}

// printTable prints the lines as a Markdown table, its columns as wide as
// their widest cell.
func printTable(lines []tableLine) {
	w := []int{len("request"), len("eventsvc"), len("bare Fiber"), len("ratio"), len("goal")}
	for _, l := range lines {
		for i, s := range []string{l.name, l.a, l.b, l.ratio, l.goal} {
			w[i] = max(w[i], len(s))
		}
	}
	format := fmt.Sprintf("| %%-%ds | %%%ds | %%%ds | %%%ds | %%-%ds | %%s\n", w[0], w[1], w[2], w[3], w[4])
	fmt.Printf(format, "request", "eventsvc", "bare Fiber", "ratio", "goal", "")
	fmt.Printf("|%s|%s:|%s:|%s:|%s|\n", strings.Repeat("-", w[0]+2), strings.Repeat("-", w[1]+1), strings.Repeat("-", w[2]+1), strings.Repeat("-", w[3]+1), strings.Repeat("-", w[4]+2))
	for _, l := range lines {
		fmt.Printf(format, l.name, l.a, l.b, l.ratio, l.goal, l.verdict)
	}
}
