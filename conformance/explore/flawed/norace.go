//go:build !race

package flawed

// raceBuild: see race.go.
const raceBuild = false
