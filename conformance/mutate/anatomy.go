package mutate

import (
	"encoding/json"
	"mime"
	"net/url"
	"slices"
	"strings"
)

// Unvaried are, of each kind of request, the parts a target may read that
// no operator varies, each with why: what a run sends of them a test
// holds against the catalogue (PartsOf), so that a part a request gains
// is either varied or said to be left alone here.
var Unvaried = map[string]map[string]string{
	OnWrite: {
		PartMethod: "another method at the list's address, on a target that takes it without a token, could change every caller's events; the method of an update is varied, at the run's own event",
		PartBody:   "a body of another media type carries the same fields; the token in a form field sends one (SVC-4)",
	},
	OnUpdate: {
		PartBody: "as a creation's",
	},
	OnGrant: {
		PartPath:   "the token endpoint's address written otherwise issues what it issues there, which every grant's answer is judged by",
		PartHeader: "the media type is the body's (the grant as JSON varies it); the client's credentials in Authorization are varied as the client id and secret",
	},
	OnRefresh: {
		PartMethod:       "as the password grant's, varied there",
		PartPath:         "as the password grant's",
		PartHeader:       "as the password grant's",
		PartBody:         "as the password grant's, varied there",
		PartClientID:     "the client's credentials are varied on the password grant, where a near-miss is one failed login of a run's budget",
		PartClientSecret: "as the client id",
	},
	OnList: {
		PartMethod:      "a read: another method at the list's address is a creation's, left alone there",
		PartPath:        "a read is open to anyone: the address operators vary it on the writes, where a bypass changes something",
		PartHeader:      "a read is open to anyone: what a header may change, the links offered, the place operators vary on the writes",
		PartAccessToken: "a read is open to anyone: the token changes only the links offered, which the registry judges of every read",
	},
}

// KindOf is the kind of request r is (OnWrite…), as a run sends it: a
// creation (POST to the event list), an update (PUT of an event), a
// password or a refresh grant (POST to the token endpoint), a read of
// the event list; "" for any other request, which no operator varies.
func KindOf(r Request) string {
	path := strings.TrimRight(r.URL.Path, "/")
	switch {
	case r.Method == "POST" && strings.HasSuffix(path, "/oauth/token"):
		form, _ := url.ParseQuery(string(r.Body))
		switch form.Get("grant_type") {
		case "password":
			return OnGrant
		case "refresh_token":
			return OnRefresh
		}
	case r.Method == "POST" && strings.HasSuffix(path, "/events"):
		return OnWrite
	case r.Method == "PUT" && strings.Contains(path, "/events/"):
		return OnUpdate
	case r.Method == "GET" && strings.HasSuffix(path, "/events"):
		return OnList
	}
	return ""
}

// PartsOf are the parts of r, a request of kind, that a target may read:
// its method and path (an update's last segment, the event's id), its
// query's parameters, its headers (credentials by what they carry), the
// fields of its JSON body, and the parameters of its form by what they
// carry.
func PartsOf(kind string, r Request) []string {
	parts := []string{PartMethod, PartPath}
	if kind == OnUpdate {
		parts = append(parts, PartID)
	}
	if r.URL.RawQuery != "" || strings.HasSuffix(r.URL.String(), "?") {
		parts = append(parts, PartQuery)
	}
	grant := kind == OnGrant || kind == OnRefresh
	for name := range r.Header {
		switch {
		case name == "Authorization" && grant:
			parts = append(parts, PartClientID, PartClientSecret) // the client's, in Basic
		case name == "Authorization":
			parts = append(parts, PartAccessToken) // the caller's, whatever its scheme
		default:
			parts = append(parts, PartHeader)
		}
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	var fields map[string]any
	switch {
	case len(r.Body) == 0:
	case grant && mt == "application/x-www-form-urlencoded":
		form, _ := url.ParseQuery(string(r.Body))
		for name := range form {
			parts = append(parts, formPart(kind, name))
		}
	case grant:
		parts = append(parts, PartBody)
	case mt == "application/x-www-form-urlencoded":
		parts = append(parts, PartBody, PartAccessToken) // a form of the event's fields, and a token in it
	case json.Unmarshal(r.Body, &fields) == nil:
		parts = append(parts, PartBodyField)
	default:
		parts = append(parts, PartBody)
	}
	slices.Sort(parts)
	return slices.Compact(parts)
}

// formPart is the part of a grant of kind that a form parameter named
// name carries: a credential, or a parameter of the form.
func formPart(kind, name string) string {
	switch {
	case name == "username" && kind == OnGrant:
		return PartUsername
	case name == "password" && kind == OnGrant:
		return PartPassword
	case (name == "token" || name == "refresh_token") && kind == OnRefresh:
		return PartRefreshToken
	case name == "client_id":
		return PartClientID
	case name == "client_secret":
		return PartClientSecret
	}
	return PartFormParam
}
