package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"
)

// Console prints a run for people: a line per scenario as it ends (or the
// scenario with its steps, in the pretty format), a line now and then for
// scenarios that take long, and at the end the failures in full, a verdict
// per selected rule and a closing verdict line.
type Console struct {
	w      io.Writer
	format string
	color  bool
	// Baseline tells, as scenarios end, which failures it expects.
	Baseline *Baseline
	// ReportDir is where the reproductions are written; "" for none.
	ReportDir string
	// Unit is what a run is made of, for the closing line: "scenario"
	// when empty, or "sequence" for an exploration.
	Unit string

	mu      sync.Mutex
	feature string // the feature of the last scenario printed (pretty)
}

// NewConsole returns a console that writes to w in format (FormatCompact
// or FormatPretty), coloured for a terminal when color is set.
func NewConsole(w io.Writer, format string, color bool) *Console {
	return &Console{w: w, format: format, color: color}
}

// Console formats.
const (
	FormatCompact = "compact" // a line per scenario, the failures in full at the end
	FormatPretty  = "pretty"  // every scenario with its steps
)

// ANSI colours.
const (
	red, green, yellow, grey, bold = "31", "32", "33", "90", "1"
)

func (c *Console) paint(code, s string) string {
	if !c.color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

// verdictLabel is a scenario's or rule's verdict, upper case, padded to
// width and coloured.
func (c *Console) verdictLabel(v string, width int) string {
	label := fmt.Sprintf("%-*s", width, strings.ToUpper(v))
	switch v {
	case Passed:
		return c.paint(green, label)
	case Failed:
		return c.paint(red, label)
	case NotRun:
		return c.paint(grey, label)
	default:
		return c.paint(yellow, label)
	}
}

// ScenarioEnded prints a scenario that ended.
func (c *Console) ScenarioEnded(r *ScenarioResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	verdict := r.Verdict
	if _, expected := c.Baseline.Covers(r); expected && verdict == Failed {
		verdict = ExpectedFailure
	}
	if r.Attempts > 1 && verdict == Failed {
		verdict = "failed again"
	}
	attempt := ""
	if r.Attempts > 1 {
		attempt = fmt.Sprintf(", attempt %d", r.Attempts)
	}
	if c.format == FormatPretty {
		c.pretty(r, attempt)
		return
	}
	line := fmt.Sprintf("%s %s  %s", c.verdictLabel(verdict, 8), c.paint(grey, Visible(r.Place())), Visible(r.Name))
	if r.Failure != nil && r.Verdict != NotRun {
		line += c.paint(grey, " — "+blameText(r))
	}
	if r.Verdict == NotRun {
		line += c.paint(grey, " — "+c.why(r))
	} else {
		line += c.paint(grey, fmt.Sprintf(" (%s%s)", r.Duration.Round(time.Millisecond), attempt))
	}
	fmt.Fprintln(c.w, line)
}

// Note prints a line of the run's own between the scenarios' lines, made
// safe for a terminal.
func (c *Console) Note(line string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	fmt.Fprintln(c.w, Visible(line))
}

// why is the reason a scenario was not run, safe for a terminal.
func (c *Console) why(r *ScenarioResult) string {
	if r.Detail != "" {
		return Visible(r.Detail)
	}
	return reasonsText([]string{r.Reason}, "")
}

func (c *Console) pretty(r *ScenarioResult, attempt string) {
	if r.Feature != c.feature {
		fmt.Fprintf(c.w, "\n%s %s\n", c.paint(bold, "Feature:"), Visible(r.Feature))
		c.feature = r.Feature
	}
	fmt.Fprintf(c.w, "\n  %s %s  %s\n", c.paint(bold, "Scenario:"), Visible(r.Name), c.paint(grey, Visible(r.Place())+attempt))
	for _, s := range r.Steps {
		text := Visible(s.Keyword + " " + s.Text)
		switch s.Status {
		case "passed":
			text = c.paint(green, text)
		case "skipped", "":
			text = c.paint(grey, text)
		case "failed", "undefined", "pending", "ambiguous":
			text = c.paint(red, text)
		}
		fmt.Fprintf(c.w, "    %s\n", text)
		if s.Error != "" {
			fmt.Fprintln(c.w, indent(Visible(s.Error), "      "))
		}
	}
	if r.Verdict == NotRun {
		fmt.Fprintf(c.w, "    %s — %s\n", c.verdictLabel(NotRun, 0), c.why(r))
	}
}

// Watch prints, every period, the scenarios that running says have run
// longer than period, until the returned stop is called.
func (c *Console) Watch(running func(time.Duration) map[*ScenarioResult]time.Duration, period time.Duration) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(period)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				long := running(period)
				var lines []string
				for r, d := range long {
					note := ""
					if slices.Contains(r.Tags, "@slow") {
						note = "; @slow: it waits for tokens to expire"
					}
					lines = append(lines, fmt.Sprintf("  … still running after %s: %s (%s%s)", roundDuration(d), Visible(r.Name), Visible(r.Place()), note))
				}
				slices.Sort(lines)
				c.mu.Lock()
				for _, l := range lines {
					fmt.Fprintln(c.w, c.paint(grey, l))
				}
				c.mu.Unlock()
			}
		}
	}()
	return func() { close(done); <-finished }
}

// roundDuration rounds d for people: to the second beyond ten seconds.
func roundDuration(d time.Duration) time.Duration {
	if d > 10*time.Second {
		return d.Round(time.Second)
	}
	return d.Round(10 * time.Millisecond)
}

func indent(s, prefix string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i, l := range lines {
		if l != "" {
			lines[i] = prefix + l
		}
	}
	return strings.Join(lines, "\n")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// exchangeLine is a masked exchange as one line: the request line and the
// answer's status, "GET http://…/api/events → 200 OK".
func exchangeLine(transcript string) string {
	var req, resp string
	section := ""
	for _, l := range strings.Split(transcript, "\n") {
		switch t := strings.TrimSpace(l); {
		case t == "request:" || t == "response:":
			section = t
		case section == "request:" && req == "":
			req = t
		case section == "response:" && resp == "":
			_, resp, _ = strings.Cut(t, " ") // after the protocol
		}
	}
	if resp == "" {
		resp = "no answer"
	}
	return req + " → " + resp
}
