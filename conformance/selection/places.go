package selection

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Only narrows a selected plan to the scenarios places name
// ("file:line": a scenario's line, or an outline row's): the others are
// left out as filtered. A place that names no scenario, or only scenarios
// the selection leaves out, is refused, saying why; one that names no
// scenario with the nearest scenarios of its file, or the files there are.
func Only(plan []*Planned, places []string) error {
	if len(places) == 0 {
		return nil
	}
	wanted := map[*Planned]bool{}
	for _, place := range places {
		place = strings.TrimPrefix(strings.TrimSpace(place), "features/")
		var named, runnable int
		reason := ""
		for _, p := range plan {
			if p.Place() != place && fmt.Sprintf("%s:%d", p.File, p.ScenarioLine) != place {
				continue
			}
			named++
			if p.Run {
				runnable++
				wanted[p] = true
			} else if reason == "" {
				reason = p.Reason
			}
		}
		switch {
		case named == 0:
			return fmt.Errorf("%q names no scenario: %s", place, nearestPlaces(plan, place))
		case runnable == 0:
			return fmt.Errorf("%s is not run by this selection (%s: %s)", place, reason, reasonText[reason])
		}
	}
	for _, p := range plan {
		if p.Run && !wanted[p] {
			p.Run, p.Reason = false, ReasonFiltered
		}
	}
	return nil
}

// nearestPlaces says which places are near one that names no scenario:
// the scenarios of its file just before and after its line, with their
// names, or the feature files there are when it names none of them.
func nearestPlaces(plan []*Planned, place string) string {
	file, lineText, _ := strings.Cut(place, ":")
	line, _ := strconv.Atoi(lineText)
	var before, after *Planned
	var files []string
	for _, p := range plan {
		if !slices.Contains(files, p.File) {
			files = append(files, p.File)
		}
		switch {
		case p.File != file:
		case p.Line <= line && (before == nil || p.Line > before.Line):
			before = p
		case p.Line > line && (after == nil || p.Line < after.Line):
			after = p
		}
	}
	if before == nil && after == nil {
		if slices.Contains(files, file+".feature") {
			return fmt.Sprintf("there is no %s: did you mean %s? %s", file, file+".feature", nearestPlaces(plan, file+".feature:"+lineText))
		}
		have := map[string]bool{}
		for _, f := range files {
			have[f] = true
		}
		if len(plan) == 0 {
			return "there is no feature file"
		}
		hint := ""
		if near := nearest(file, have); near != "" {
			hint = "did you mean " + near + "? "
		}
		return fmt.Sprintf("there is no %s; %sthe feature files are %s: give file:line as the reports and conformance -list show it, such as %s (%s)",
			file, hint, strings.Join(files, ", "), plan[0].Place(), plan[0].Name)
	}
	var near []string
	for _, p := range []*Planned{before, after} {
		if p != nil {
			near = append(near, fmt.Sprintf("%s (%s)", p.Place(), p.Name))
		}
	}
	if len(near) == 1 {
		return fmt.Sprintf("the nearest scenario of %s is %s", file, near[0])
	}
	return fmt.Sprintf("the nearest scenarios of %s are %s and %s", file, near[0], near[1])
}
