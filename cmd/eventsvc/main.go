// Command eventsvc is the Event Service reference server.
//
//	eventsvc serve [-addr HOST:PORT] [-config FILE]
//	eventsvc hash-password [-cost N] < secret
//	eventsvc version
//
// serve starts the server, on the embedded demo credentials unless -config
// names a configuration file. hash-password reads a secret or password on
// standard input and prints the {bcrypt} form a configuration file stores.
// version prints the version, revision and build date (package version).
package main

import (
	"os"
	"os/signal"
	"syscall"
)

func main() {
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, os.Interrupt, syscall.SIGTERM)
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr, stop))
}
