package explore

import (
	"bytes"
	"context"
	"testing"

	"eventsvc/conformance"
	"eventsvc/steps"
)

// inProcess is a target of one in-process reference server.
func inProcess() steps.Target {
	creds := conformance.DemoCredentials
	return steps.Target{Credentials: creds, RunID: "explore-test", Launcher: conformance.InProcess{Credentials: creds, RealTime: true}}
}

func TestExploringTheReferenceServerFindsNothing(t *testing.T) {
	var out bytes.Buffer
	rep, err := Run(context.Background(), Options{Target: inProcess(), Seed: 1, Output: &out, ReportDir: t.TempDir()})
	if err != nil {
		t.Fatalf("Run = %v\n%s", err, out.String())
	}
	if len(rep.Scenarios) == 0 {
		t.Fatal("no sequence ran")
	}
	t.Log(out.String())
}
