//go:build !race

package suite

// raceBuild: see race_test.go.
const raceBuild = false
