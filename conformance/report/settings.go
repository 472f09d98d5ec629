package report

// Setting is one thing a user set for a run, as the report shows it: a
// flag of the command, by its name, with the value in effect and where
// it came from. A secret's value is never shown: it reads "(set)".
type Setting struct {
	// Name is the flag, such as "-concurrency", or the variable of a
	// setting no flag stands for, such as "CONFORMANCE_CLIENT_ID".
	Name string `json:"name"`
	// Value is the value in effect, as given or as the default says.
	Value string `json:"value"`
	// From is where the value came from: "flag", the variable
	// ("$CONFORMANCE_CONCURRENCY"), or "default".
	From string `json:"from"`
}

// Setting sources.
const (
	FromFlag    = "flag"
	FromDefault = "default"
)
