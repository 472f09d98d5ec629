package steps

import (
	"fmt"
	"reflect"
	"regexp"
	"sync"

	"github.com/cucumber/godog"
)

// stepRegistry is a scenario's context, on which the step definitions are
// registered with their expressions compiled once per run: godog compiles
// an expression given as a string each time it is registered, which is
// for every step of every scenario, and took a fifth of the suite's own
// time. Every step's failure passes through its scenario's settle, so
// that a failure about an exchange the registry found at fault is the
// registry's finding (blame.go).
type stepRegistry struct {
	*godog.ScenarioContext
	compiled *expressions
	s        *scenario
}

// Step registers fn for the steps that expr matches.
func (r stepRegistry) Step(expr string, fn any) {
	r.ScenarioContext.Step(r.compiled.get(expr), settled(fn, r.s.settle))
}

// errorType is the type of error.
var errorType = reflect.TypeFor[error]()

// settled returns fn, a step definition, with the error it returns passed
// through settle: a function of the same type, which godog reads the
// step's arguments by. A step definition returns an error last, and
// takes no variadic arguments: one that does not is a mistake of the
// steps, told when it is registered.
func settled(fn any, settle func(error) error) any {
	v := reflect.ValueOf(fn)
	t := v.Type()
	if t.Kind() != reflect.Func || t.IsVariadic() || t.NumOut() == 0 || t.Out(t.NumOut()-1) != errorType {
		panic(fmt.Sprintf("a step definition returns an error last and is not variadic: %T", fn))
	}
	return reflect.MakeFunc(t, func(args []reflect.Value) []reflect.Value {
		out := v.Call(args)
		last := out[len(out)-1]
		if err, _ := last.Interface().(error); err != nil {
			v := reflect.New(errorType).Elem()
			if err := settle(err); err != nil {
				v.Set(reflect.ValueOf(err))
			}
			out[len(out)-1] = v
		}
		return out
	}).Interface()
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
