package docs

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
)

// Static are the reference server's public files, served whatever the
// Authorization header holds (spec SVC-6, AUTH-5): the documentation page
// (static/docs/index.html, which make docs writes from the features and
// the server), its stylesheet and the icon.
//
//go:embed static
var Static embed.FS

// Page is the documentation page served at /docs/index.html with its
// stylesheet inlined, so that it reads the same saved beside a report as
// served: the rule catalogue, each rule with the scenarios that check it,
// under an anchor named by the rule's id.
func Page() ([]byte, error) {
	page, err := Static.ReadFile("static/docs/index.html")
	if err != nil {
		return nil, fmt.Errorf("read the documentation page: %w", err)
	}
	css, err := Static.ReadFile("static/css/docs.css")
	if err != nil {
		return nil, fmt.Errorf("read the documentation stylesheet: %w", err)
	}
	const link = `<link rel="stylesheet" href="/css/docs.css">`
	if !bytes.Contains(page, []byte(link)) {
		return nil, errors.New("the documentation page does not link its stylesheet as expected")
	}
	style := append(append([]byte("<style>\n"), css...), "</style>"...)
	page = bytes.Replace(page, []byte(link), style, 1)
	return bytes.Replace(page, []byte(`<link rel="icon" href="/favicon.ico">`), nil, 1), nil
}
