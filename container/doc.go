// Package container holds the Containerfiles of the two images `make image`
// builds, each a static binary on an empty base: eventsvc
// (eventsvc.Containerfile, the reference server) and conformance
// (conformance.Containerfile, the suite). Its test builds both with podman,
// starts the server's image and runs the suite's image against it.
package container
