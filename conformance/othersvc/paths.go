package othersvc

// How the second implementation (othersvc.go) reads the path of a
// request: the path its router serves, and the writes its security filter
// asks a token of. Both read the path alike, unless a flaw of the router's
// folds spellings that the filter, matching the path as it was sent, does
// not.

import (
	"encoding/hex"
	"net/http"
	"path"
	"strings"
)

// route is the path the router serves r at: the path as sent, its
// percent-encoding decoded, and folded as a flaw of the router's, or the
// choice foldPaths, says.
func (o *otherSvc) route(r *http.Request) string {
	p := r.URL.Path
	if (o.Flaws.DotSegments || o.Choices.FoldPaths) && p != "" {
		p = path.Clean(p) // dot segments, repeated and trailing slashes
	}
	if o.Flaws.DoubleSlash {
		for strings.Contains(p, "//") {
			p = strings.ReplaceAll(p, "//", "/")
		}
	}
	if o.Flaws.CaseFolded {
		p = strings.ToLower(p)
	}
	if o.Flaws.TrailingSlash && len(p) > 1 {
		p = strings.TrimSuffix(p, "/")
	}
	return p
}

// folds reports whether the router folds spellings the filter does not.
func (o *otherSvc) folds() bool {
	f := o.Flaws
	return f.TrailingSlash || f.DoubleSlash || f.EncodedLetters || f.DotSegments || f.CaseFolded
}

// guarded reports whether the security filter asks a token of the write
// r, which the router serves at p: of every write under /api. A filter
// behind a router that folds spellings knows the two routes that write,
// as spelled; a write the router serves nowhere is refused without a
// token, as the error page it leads to is guarded.
func (o *otherSvc) guarded(r *http.Request, p string) bool {
	if !o.folds() {
		return true
	}
	sent := r.URL.Path
	if o.Flaws.EncodedLetters {
		sent = r.URL.EscapedPath()
	}
	return !isWriteRoute(p) || isWriteRoute(sent)
}

// isWriteRoute reports whether p is the list or an event.
func isWriteRoute(p string) bool {
	id, ok := strings.CutPrefix(p, "/api/events/")
	return p == "/api/events" || ok && id != "" && !strings.Contains(id, "/")
}

// oddPath reports whether the path raw, as sent, is written in a way
// other than the one the server reads (choice refuseOddPaths): with a dot
// segment, a repeated or trailing slash, or an unreserved character
// percent-encoded (RFC 3986 §6.2.2).
func oddPath(raw string) bool {
	if len(raw) > 1 && strings.HasSuffix(raw, "/") || strings.Contains(raw, "//") {
		return true
	}
	for _, seg := range strings.Split(raw, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	for i := 0; i+2 < len(raw); i++ {
		if raw[i] != '%' {
			continue
		}
		if b, err := hex.DecodeString(raw[i+1 : i+3]); err == nil && isUnreserved(b[0]) {
			return true
		}
	}
	return false
}

// isUnreserved reports whether c is an unreserved character of RFC 3986
// §2.3.
func isUnreserved(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-._~", c) >= 0
}
