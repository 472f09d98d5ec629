package selection

import (
	"regexp"
	"strings"
	"testing"

	"eventsvc/features"
)

// loadAll is the plan of the project's features, every scenario selected.
func loadAll(t *testing.T) []*Planned {
	t.Helper()
	set, err := features.Load(features.FS)
	if err != nil {
		t.Fatal(err)
	}
	plan := Plan(set)
	for _, p := range plan {
		p.Run, p.Reason = true, ""
	}
	return plan
}

// TestAPlaceOfNoScenarioIsRefusedWithRealOnes: -run with a file:line that
// is no scenario's is refused with the nearest scenarios of that file, by
// name, or with the feature files there are; every place the message
// suggests is one -run takes.
func TestAPlaceOfNoScenarioIsRefusedWithRealOnes(t *testing.T) {
	placeShape := regexp.MustCompile(`[a-z_]+\.feature:[0-9]+`)
	for _, tt := range []struct {
		place string
		want  []string
	}{
		// reading.feature:24 is a step of the scenario at 20; 33 is the next one.
		{"reading.feature:24", []string{"reading.feature:20 (Only the manager is offered the update link)", "reading.feature:33 (Every link of the event leads where its relation says)"}},
		{"reading.feature:1", []string{"reading.feature:15 (Anyone can read an event without a token)"}},
		{"reading.feature", []string{"reading.feature:15 (Anyone can read an event without a token)"}},
		{"reading.feature:9999", []string{"reading.feature:"}},
		{"nope.feature:3", []string{"there is no nope.feature", "access_rules.feature", "writing.feature"}},
		{"tokens:13", []string{"there is no tokens", "tokens.feature"}},
	} {
		err := Only(loadAll(t), []string{tt.place})
		if err == nil {
			t.Errorf("-run %s: accepted", tt.place)
			continue
		}
		msg := err.Error()
		for _, w := range tt.want {
			if !strings.Contains(msg, w) {
				t.Errorf("-run %s: %q does not say %q", tt.place, msg, w)
			}
		}
		suggested := placeShape.FindAllString(msg, -1)
		if len(suggested) == 0 {
			t.Errorf("-run %s: %q suggests no place", tt.place, msg)
		}
		for _, s := range suggested {
			if s == tt.place {
				continue
			}
			if err := Only(loadAll(t), []string{s}); err != nil {
				t.Errorf("-run %s suggests %s, which names no scenario: %v", tt.place, s, err)
			}
		}
	}
}
