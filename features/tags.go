package features

import (
	"regexp"
	"slices"
)

// Tags are the tags of a scenario or a pickle with their @, such as "@spec"
// and "@AUTH-6", inherited ones first.
type Tags []string

// ruleTag is the tag of a rule: @ and the rule's id.
var ruleTag = regexp.MustCompile(`^@([A-Z]+-[0-9]+)$`)

// Has reports whether tag, given with its @, is among t.
func (t Tags) Has(tag string) bool {
	return slices.Contains(t, tag)
}

// Rules returns the ids of the rules t names, such as "AUTH-6", in their
// order.
func (t Tags) Rules() []string {
	var ids []string
	for _, tag := range t {
		if m := ruleTag.FindStringSubmatch(tag); m != nil && !slices.Contains(ids, m[1]) {
			ids = append(ids, m[1])
		}
	}
	return ids
}

// Kind is "spec" or "ref", whichever of @spec and @ref comes first in t,
// and empty when neither does.
func (t Tags) Kind() string {
	for _, tag := range t {
		if tag == "@spec" || tag == "@ref" {
			return tag[1:]
		}
	}
	return ""
}

// Flags are the tags that say where a scenario runs, without their @:
// "local", "slow" and "writes", in their order in t.
func (t Tags) Flags() []string {
	var out []string
	for _, tag := range t {
		switch tag {
		case "@local", "@slow", "@writes":
			out = append(out, tag[1:])
		}
	}
	return out
}
