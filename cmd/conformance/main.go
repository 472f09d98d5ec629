// Command conformance is the Event Service conformance suite as one binary,
// with the features embedded, for CI jobs that check a deployment without a
// checkout:
//
//	conformance -base-url https://staging.example [-tags EXPR] [-report-dir DIR] [-read-only] [-list]
//	conformance explore -base-url https://staging.example [-seed N] [-max-actions N] [-replay FILE]
//	conformance -version
//
// Credentials come from the CONFORMANCE_* variables
// (docs/running-against-a-deployment.md).
// Without -base-url it checks an in-process reference server.
package main

import "os"

func main() {
	os.Exit(run(os.Args[1:], os.LookupEnv, os.Stdout, os.Stderr))
}
