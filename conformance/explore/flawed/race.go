//go:build race

package flawed

// raceBuild is set when the tests that start flawed servers run under
// the race detector.
const raceBuild = true
