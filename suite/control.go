package suite

import (
	"net/url"
	"strings"

	"eventsvc/conformance/report"
)

// controlFromEnv reads CONTROL_URL, the address of the control API of a
// reference server run out of process (`eventsvc serve -control`), and
// CONFORMANCE_CONTROL_TOKEN, its bearer token if it needs one. With them
// the clock steps move that server's clock, and unless CONFORMANCE_TAGS
// says otherwise the run also selects the scenarios of token validity
// (selection.ControlTags, which FromEnv gives).
func controlFromEnv(getenv func(string) string, o *Options) error {
	control := strings.TrimRight(strings.TrimSpace(getenv("CONTROL_URL")), "/")
	token := getenv("CONFORMANCE_CONTROL_TOKEN")
	if control == "" {
		return nil
	}
	if !o.Target.Remote() {
		return report.Usage("CONTROL_URL is the control API of a reference server run out of process: give that server's address in BASE_URL too")
	}
	u, err := url.Parse(control)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return report.Usage("CONTROL_URL %q is not an http or https address", control)
	}
	o.Target.ControlURL = control
	o.Target.ControlToken = token
	return nil
}
