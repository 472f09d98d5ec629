// Command printversion prints version.Get, for the test of the link-time
// strings.
package main

import (
	"fmt"

	"eventsvc/internal/version"
)

func main() { fmt.Println(version.Get()) }
