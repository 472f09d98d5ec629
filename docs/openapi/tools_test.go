package openapi_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// tool returns the absolute path of a command of the pinned Node tools in
// lint/ (make openapi-tools installs them). Without them, or without node,
// the test is skipped with the reason; in CI, where .ci/run installs them,
// it fails.
func tool(t *testing.T, name string) string {
	t.Helper()
	bin, err := filepath.Abs(filepath.Join("lint", "node_modules", ".bin", name))
	if err != nil {
		t.Fatal(err)
	}
	_, statErr := os.Stat(bin)
	_, nodeErr := exec.LookPath("node")
	if statErr != nil || nodeErr != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("no %s: .ci/run installs Node and the pinned OpenAPI tools (make openapi-tools) for this check", name)
		}
		t.Skipf("no %s, or no node, on this machine (make openapi-tools installs it with npm): this check runs in CI", name)
	}
	return bin
}

// toolEnv is the environment of the tools: no usage report sent and no
// update notice (Redocly), no colours.
func toolEnv() []string {
	return append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true", "NO_COLOR=1", "FORCE_COLOR=0")
}
