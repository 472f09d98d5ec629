package config

import (
	_ "embed"
	"strings"
)

// demoJSON is the embedded demo configuration. Its hashes were made at
// bcrypt cost 10 from the plain texts below.
//
//go:embed demo.json
var demoJSON string

// The demo credentials in plain text. They are public: they are printed at
// startup and written in the documentation.
const (
	demoClientID      = "myApp"
	demoClientSecret  = "pass"
	demoAdminEmail    = "admin@email.com"
	demoAdminPassword = "admin"
	demoUserEmail     = "user@email.com"
	demoUserPassword  = "user"
)

// DemoNotice is the startup banner shown when the server runs with the demo
// configuration. It lists the demo credentials in plain text.
const DemoNotice = `Using the built-in DEMO credentials. They are public demo credentials, for local use only:
  client   ` + demoClientID + ` / ` + demoClientSecret + `              grants password, refresh_token; scopes read, write
  account  ` + demoAdminEmail + ` / ` + demoAdminPassword + `   roles ADMIN, USER
  account  ` + demoUserEmail + ` / ` + demoUserPassword + `     roles USER
Start with -config FILE to replace them with your own clients and accounts
(secrets and passwords stored as {bcrypt}..., made with "eventsvc hash-password").
`

// Demo returns the embedded demo configuration: the client and the two
// accounts DemoNotice lists.
func Demo() (*Config, error) {
	return Parse("demo.json (embedded)", strings.NewReader(demoJSON))
}
