// Package selection reads the features into planned scenarios and selects
// those a run checks: by a tag expression (godog's and Cucumber's syntax),
// by what the target can run (a deployment, a clock, read-only), and by
// file:line.
package selection

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"eventsvc/docs"
	"eventsvc/features"
)

// Why a scenario is not run (Planned.Reason).
const (
	ReasonRef      = "@ref"      // a reference-server choice, left out against a deployment unless asked
	ReasonLocal    = "@local"    // needs the in-process reference server
	ReasonClock    = "@clock"    // moves the server's clock: in-process, or with a control API
	ReasonSlow     = "@slow"     // waits in real time, left out unless asked
	ReasonReadOnly = "read-only" // creates or changes events, and the run is read-only
	ReasonTags     = "tags"      // the tag expression leaves it out
	ReasonTarget   = "target"    // a step found that the target cannot show the rule
	ReasonFiltered = "filtered"  // -run, -rerun-failed or go test -run left it out
	ReasonThrottle = "throttled" // the target answered 429 during the run
	// ReasonUnreachable: the target stopped answering during the run.
	ReasonUnreachable = "unreachable"
	ReasonNoStart     = "not started" // the run did not start
	// ReasonNotChecked: the scenario ran and failed on another rule, or
	// in its setup, before it could show this one.
	ReasonNotChecked = "not checked"
	// ReasonNotExplored: an exploration checks no answer against it.
	ReasonNotExplored = "not explored"
	// ReasonDeadLink: it met a link of the target that leads nowhere
	// (package deadlink), told once as API-10.
	ReasonDeadLink = "dead link"
)

// ReasonText says what a reason means, for people; "" for one it does not
// know.
func ReasonText(reason string) string { return reasonText[reason] }

// reasonText says what each reason means, for people.
var reasonText = map[string]string{
	ReasonRef:         "a reference-server choice; select it with @ref",
	ReasonLocal:       "needs the in-process reference server",
	ReasonClock:       "moves the server's clock: needs the in-process reference server, or CONTROL_URL (a reference server's control API)",
	ReasonSlow:        "waits in real time; select it with @slow",
	ReasonReadOnly:    "writes, and the run is read-only",
	ReasonNotChecked:  "its scenario failed before it could check it (on another rule, or in its setup)",
	ReasonTags:        "not selected by the tags",
	ReasonTarget:      "the target cannot show it",
	ReasonFiltered:    "left out by -run, -rerun-failed or go test -run",
	ReasonThrottle:    "the target throttled the run",
	ReasonUnreachable: "the target stopped answering during the run",
	ReasonNoStart:     "the run did not start",
	ReasonNotExplored: "exploration does not check it; the scenarios do",
	ReasonDeadLink:    "it met a link of the target that leads nowhere (API-10 tells it)",
}

// Planned is one scenario of a run (a scenario, or one example row of an
// outline) and whether the run selects it.
type Planned struct {
	File    string // as in the features folder, such as "tokens.feature"
	Line    int    // of the scenario, or of the example row
	Feature string // the feature's name
	// Name is the scenario's name; for an example row, followed by the
	// row's values, such as `No token for <request> (request: an unknown
	// user's token)`.
	Name  string
	Tags  []string // every tag it has, with its @
	Rules []string // the rule ids its tags name
	Steps []PlannedStep
	// Run is whether the run selects it; when not, Reason says why.
	Run    bool
	Reason string

	// PickleName is godog's name for it.
	PickleName string
	// ScenarioLine is the line of its scenario or outline, which godog
	// selects by.
	ScenarioLine int
}

// PlannedStep is one step of a planned scenario, background steps first.
type PlannedStep struct {
	Keyword string // such as "Given"
	Text    string
	Line    int
	// Arranges is true for a step that sets the scene (Given, and an And
	// or But after one): its failure is a setup failure, not a rule's.
	Arranges bool
}

// Place is "file:line".
func (p *Planned) Place() string { return fmt.Sprintf("%s:%d", p.File, p.Line) }

// PickleKey identifies a pickle by what godog tells of it: its file, name,
// tags and step texts.
func PickleKey(uri, name string, tags []string, steps []string) string {
	if i := strings.LastIndex(uri, ".feature:"); i >= 0 {
		uri = uri[:i+len(".feature")]
	}
	return uri + "\x00" + name + "\x00" + strings.Join(tags, " ") + "\x00" + strings.Join(steps, "\n")
}

// Key is the PickleKey of the scenario.
func (p *Planned) Key() string {
	texts := make([]string, len(p.Steps))
	for i, s := range p.Steps {
		texts[i] = s.Text
	}
	return PickleKey(p.File, p.PickleName, p.Tags, texts)
}

// Plan is the planned scenarios of set (features.Load), in file name
// order, not yet selected: one for each pickle, a scenario or one
// example row of an outline.
func Plan(set *features.Set) []*Planned {
	var out []*Planned
	for _, pk := range set.Pickles() {
		pl := &Planned{File: pk.Feature.File, Feature: pk.Feature.Name, Name: pk.Name, PickleName: pk.Name,
			Line: pk.Line, ScenarioLine: pk.ScenarioLine, Tags: slices.Clone([]string(pk.Tags)), Rules: pk.Tags.Rules()}
		if pk.Row != nil && pk.Scenario != nil && pk.Name == pk.Scenario.Name {
			// The name has no placeholder: the row's values tell it apart.
			pl.Name += " (" + strings.Join(pk.Row, ", ") + ")"
		}
		for i, text := range pk.Steps {
			w := pk.Written[i]
			pl.Steps = append(pl.Steps, PlannedStep{Keyword: w.Keyword, Text: text, Line: w.Line, Arranges: w.Arranges})
		}
		out = append(out, pl)
	}
	return out
}

// failedLogin is the text of a step that asks for a token with wrong
// credentials: a failed login the target may count towards a lockout.
var failedLogin = regexp.MustCompile(`(?i)wrong (password|client secret)|unknown user|credentials as the (client|user)'s`)

// FailedLogins returns how many token requests with wrong credentials the
// selected scenarios of plan send.
func FailedLogins(plan []*Planned) int {
	n := 0
	for _, p := range plan {
		if !p.Run {
			continue
		}
		for _, s := range p.Steps {
			if failedLogin.MatchString(s.Text) {
				n++
			}
		}
	}
	return n
}

// Selection says what a run selects.
type Selection struct {
	// Tags is the expression as given (or the default).
	Tags TagExpr
	// Default is whether Tags is the default of the target.
	Default bool
	// Remote is whether the target is a deployment.
	Remote bool
	// Clock is whether the remote target's clock can be moved (a
	// reference server's control API): its @local @clock scenarios run.
	Clock bool
	// ReadOnly leaves out @writes.
	ReadOnly bool
	// Slow selects the @slow scenarios as any other (-slow): the tags
	// decide, where otherwise only an expression that names @slow
	// selects them.
	Slow bool
}

// ruleIDShape is what a tag naming a rule looks like, in any case.
var ruleIDShape = regexp.MustCompile(`^@([A-Za-z]+)-([0-9]+)$`)

// knownTags are the tags every feature folder may be selected by.
var knownTags = []string{"@spec", "@ref", "@local", "@clock", "@slow", "@writes"}

// CheckTags refuses an expression that names a rule the catalogue does not
// have, or a tag no scenario carries, with a suggestion when one is near.
func CheckTags(e TagExpr, plan []*Planned, catalogue *docs.Catalogue) error {
	have := map[string]bool{}
	for _, t := range knownTags {
		have[t] = true
	}
	for _, r := range catalogue.Rules() {
		have["@"+r.ID] = true
	}
	for _, p := range plan {
		for _, t := range p.Tags {
			have[t] = true
		}
	}
	for _, name := range e.Names() {
		if have[name] {
			continue
		}
		if m := ruleIDShape.FindStringSubmatch(name); m != nil {
			id := strings.ToUpper(m[1]) + "-" + m[2]
			if have["@"+id] {
				return fmt.Errorf("%w: %q names %s, which is not a rule: rule ids are upper case (@%s)", ErrTags, e.String(), name, id)
			}
			return fmt.Errorf("%w: %q names %s, which is not a rule of docs/rules.md (%s)", ErrTags, e.String(), name, sectionRange(catalogue, strings.ToUpper(m[1])))
		}
		hint := "the tags are " + strings.Join(knownTags, ", ") + " and the rule ids such as @AUTH-6"
		if near := nearest(name, have); near != "" {
			hint = "did you mean " + near + "?"
		}
		return fmt.Errorf("%w: %q names %s, which no scenario has (%s)", ErrTags, e.String(), name, hint)
	}
	return nil
}

// sectionRange says which rule ids a section of the catalogue has.
func sectionRange(c *docs.Catalogue, code string) string {
	var ids []string
	for _, r := range c.Rules() {
		if r.Section.Code == code {
			ids = append(ids, r.ID)
		}
	}
	if len(ids) == 0 {
		var codes []string
		for _, s := range c.Sections() {
			codes = append(codes, s.Code)
		}
		return "there is no section " + code + "; the sections are " + strings.Join(codes, ", ")
	}
	return "its " + code + " rules run from " + ids[0] + " to " + ids[len(ids)-1]
}

// nearest is the known tag closest to name, if it is close.
func nearest(name string, have map[string]bool) string {
	best, bestD := "", 3
	var names []string
	for t := range have {
		names = append(names, t)
	}
	slices.Sort(names)
	for _, t := range names {
		if strings.EqualFold(t, name) {
			return t
		}
		if d := distance(strings.ToLower(t), strings.ToLower(name)); d < bestD {
			best, bestD = t, d
		}
	}
	return best
}

// distance is the Levenshtein distance of a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// Select marks which scenarios of plan s selects, and why the others
// are not run. It returns the expression godog is given, which selects
// exactly those scenarios. Remotely, @local scenarios never run; @slow ones
// run only when the expression names @slow, and @ref ones remotely only when
// it names @ref.
func Select(plan []*Planned, s Selection) (TagExpr, error) {
	effective := s.Tags
	var extra []string
	if s.Remote && s.Clock {
		extra = append(extra, "~@local,@clock")
	} else if s.Remote {
		extra = append(extra, "~@local")
		if !s.Tags.Mentions("@ref") && !s.Default {
			extra = append(extra, "~@ref")
		}
	}
	if !s.Tags.Mentions("@slow") && !s.Slow {
		extra = append(extra, "~@slow")
	}
	if s.ReadOnly {
		extra = append(extra, "~@writes")
	}
	extra = slices.DeleteFunc(extra, s.Tags.requires)
	if len(extra) > 0 {
		more, err := ParseTags(strings.Join(extra, " && "))
		if err != nil {
			return TagExpr{}, err
		}
		effective = effective.And(more)
	}
	has := func(p *Planned, tag string) bool { return slices.Contains(p.Tags, tag) }
	for _, p := range plan {
		p.Run, p.Reason = false, ""
		switch {
		case !s.Default && !s.Tags.Match(p.Tags):
			p.Reason = ReasonTags
		case s.Remote && has(p, "@local") && has(p, "@clock") && !s.Clock:
			p.Reason = ReasonClock
		case s.Remote && has(p, "@local") && !has(p, "@clock"):
			p.Reason = ReasonLocal
		case has(p, "@slow") && !s.Tags.Mentions("@slow") && !s.Slow:
			p.Reason = ReasonSlow
		case s.Remote && has(p, "@ref") && !has(p, "@spec") && !s.Tags.Mentions("@ref") && !s.Default:
			p.Reason = ReasonRef
		case !s.Tags.Match(p.Tags):
			p.Reason = ReasonTags
			for _, t := range []string{"@local", "@slow", "@ref"} {
				if has(p, t) {
					p.Reason = t
					break
				}
			}
		case s.ReadOnly && has(p, "@writes"):
			p.Reason = ReasonReadOnly
		default:
			p.Run = true
		}
	}
	return effective, nil
}
