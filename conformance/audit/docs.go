package audit

import (
	"net/http"
	"strings"
)

// docsPage is the documentation's page the specification names (SVC-6).
const docsPage = "/docs/index.html"

// isDocs reports whether o read the documentation: a GET under /docs/.
func isDocs(o *observed) bool {
	return o.x.Method == http.MethodGet && strings.HasPrefix(o.path, "/docs/")
}

// checkDocs checks a read of the documentation (spec SVC-6, AUTH-5): no
// address under /docs/ is refused for want of credentials, or for those
// sent, and its page (docsPage) is served to every caller. What a
// "profile" link leads to is judged as a link (leads): not empty.
// SVC-6 is a read without credentials; AUTH-5 one with an Authorization
// header, whatever it holds. A redirect is not judged.
func (w *world) checkDocs(o *observed) *Finding {
	if o.x.Status >= 300 && o.x.Status < 400 {
		return nil
	}
	rule := "SVC-6"
	if o.x.Header.Get("Authorization") != "" {
		rule = "AUTH-5"
	}
	o.checked(rule)
	switch {
	case o.x.Status == http.StatusUnauthorized || o.x.Status == http.StatusForbidden:
		return finding(rule, "GET %s, sent by %s, answered %d: the documentation needs no authentication", o.path, o.caller.who(), o.x.Status)
	case o.path != docsPage:
		return nil
	case !o.success():
		return finding(rule, "the documentation page %s, read by %s, answered %d", docsPage, o.caller.who(), o.x.Status)
	}
	return nil
}
