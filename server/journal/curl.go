package journal

import (
	"maps"
	"slices"
	"strings"
)

// curl is e's request as a curl command: its method, its address (from its
// Host header), its headers but those curl sets itself, and its body, all
// masked as the entry holds them. A body the entry did not keep whole, or
// not at all, is left out, which the command says.
func curl(e Entry) string {
	host := e.Request.Headers.Get("Host")
	if host == "" {
		host = "localhost"
	}
	address := "http://" + host + e.Path
	if e.Query != "" {
		address += "?" + e.Query
	}
	parts := []string{"curl", "-i"}
	if e.Method != "GET" {
		parts = append(parts, "-X", e.Method)
	}
	parts = append(parts, quote(address))
	for _, name := range slices.Sorted(maps.Keys(e.Request.Headers)) {
		switch strings.ToLower(name) {
		case "host", "content-length", "user-agent", "accept-encoding", "connection":
			continue
		}
		for _, v := range e.Request.Headers[name] {
			parts = append(parts, "-H", quote(name+": "+v))
		}
	}
	body := e.Request.Body
	switch {
	case body == "":
	case e.Request.Truncated || strings.HasPrefix(body, "(not recorded") || strings.HasPrefix(body, "(a file") || strings.HasPrefix(body, "(not UTF-8"):
		parts = append(parts, "# the body was not kept whole")
	default:
		parts = append(parts, "--data-raw", quote(body))
	}
	return strings.Join(parts, " ")
}

// quote is s as one single-quoted shell word.
func quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
