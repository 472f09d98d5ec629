// Package steps holds the godog step definitions of the Event Service
// conformance suite, and nothing else: the target they run against, its
// configuration and the run's services (package target) live with the
// runner. Each scenario gets its own state, created by the scenario
// initializer; every HTTP request goes through httpexpect, and every
// exchange through the run's audit.
package steps
