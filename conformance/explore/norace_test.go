//go:build !race

package explore

// raceBuild: see race_test.go.
const raceBuild = false
