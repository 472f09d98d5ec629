//go:build race

package suite

// raceBuild is set when the tests run under the race detector: the
// replicas are then built with it too, so that the build reuses the
// packages the tests compiled instead of compiling them all again.
const raceBuild = true
