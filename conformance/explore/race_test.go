//go:build race

package explore

// raceBuild is set when the tests run under the race detector.
const raceBuild = true
