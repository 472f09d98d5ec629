package steps

import "testing"

func TestAnExpressionIsCompiledOncePerRun(t *testing.T) {
	var e expressions
	a, b := e.get(`^the answer has status (\d+)$`), e.get(`^the answer has status (\d+)$`)
	if a != b {
		t.Error("the same expression was compiled twice")
	}
	if !a.MatchString("the answer has status 200") {
		t.Errorf("%v does not match the step it was written for", a)
	}
	if c := e.get(`^the answer has a success status$`); c == a {
		t.Error("two expressions share one compiled form")
	}
}
