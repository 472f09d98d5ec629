// Package hal reads the HAL documents of the Event Service API (spec
// SVC-2): the links of a resource by relation name, the resources a list
// embeds, and link templates. Both the scenarios' steps and the explorer
// read answers through it.
package hal

import (
	"net/url"
	"slices"
	"strings"
)

// Links reads the "_links" of one HAL object: the href of each relation.
// An entry that is an array of links gives its first link; an entry
// without a string href is left out.
func Links(doc map[string]any) map[string]string {
	out := map[string]string{}
	links, _ := doc["_links"].(map[string]any)
	for rel, v := range links {
		if list, ok := v.([]any); ok && len(list) > 0 {
			v = list[0]
		}
		if link, ok := v.(map[string]any); ok {
			if href, ok := link["href"].(string); ok {
				out[rel] = href
			}
		}
	}
	return out
}

// Items returns the resources a list embeds: every object of every array
// under "_embedded", or, without "_embedded", of every array of doc.
func Items(doc map[string]any) []map[string]any {
	embedded, ok := doc["_embedded"].(map[string]any)
	if !ok {
		embedded = doc
	}
	var items []map[string]any
	for _, v := range embedded {
		list, _ := v.([]any)
		for _, e := range list {
			if m, ok := e.(map[string]any); ok {
				items = append(items, m)
			}
		}
	}
	return items
}

// Expand fills the variables of a link template ("events/{id}"), each
// value escaped as a path segment.
func Expand(template string, vars map[string]string) string {
	for k, v := range vars {
		template = strings.ReplaceAll(template, "{"+k+"}", url.PathEscape(v))
	}
	return template
}

// Resolve turns an href into an absolute address (RFC 3986 §5, spec
// API-10): a relative href is resolved against base, the address of the
// answer that carried it. An href that does not parse is returned as it is.
func Resolve(base *url.URL, href string) string {
	ref, err := url.Parse(href)
	if err != nil || base == nil {
		return href
	}
	return base.ResolveReference(ref).String()
}

// RelNames lists the relations of links for a message: "profile",
// "self", or none.
func RelNames(links map[string]string) string {
	if len(links) == 0 {
		return "none"
	}
	var names []string
	for rel := range links {
		names = append(names, rel)
	}
	slices.Sort(names)
	return `"` + strings.Join(names, `", "`) + `"`
}
