package steps

import (
	"regexp"
	"sync"

	"github.com/cucumber/godog"
)

// stepRegistry is a scenario's context, on which the step definitions are
// registered with their expressions compiled once per run: godog compiles
// an expression given as a string each time it is registered, which is
// for every step of every scenario, and took a fifth of the suite's own
// time.
type stepRegistry struct {
	*godog.ScenarioContext
	compiled *expressions
}

// Step registers fn for the steps that expr matches.
func (r stepRegistry) Step(expr string, fn any) {
	r.ScenarioContext.Step(r.compiled.get(expr), fn)
}

// expressions are the step expressions of a run, compiled.
type expressions struct {
	mu sync.Mutex
	m  map[string]*regexp.Regexp
}

// get returns expr compiled, compiling it the first time.
func (e *expressions) get(expr string) *regexp.Regexp {
	e.mu.Lock()
	defer e.mu.Unlock()
	if re, ok := e.m[expr]; ok {
		return re
	}
	if e.m == nil {
		e.m = map[string]*regexp.Regexp{}
	}
	re := regexp.MustCompile(expr)
	e.m[expr] = re
	return re
}
