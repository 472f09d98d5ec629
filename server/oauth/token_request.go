package oauth

import (
	"encoding/base64"
	"mime"
	"net/url"
	"strings"
)

// formMediaType is the only media type the token endpoint accepts (RFC 6749
// §4.3.2, spec TOK-2).
const formMediaType = "application/x-www-form-urlencoded"

// ParseBasic reads the client credentials from an HTTP Basic Authorization
// header value. Following RFC 6749 §2.3.1
// (https://www.rfc-editor.org/rfc/rfc6749#section-2.3.1) the id and the
// secret are form-decoded after the base64 decoding. Every failure is an
// ErrInvalidClient whose description never repeats the credentials.
func ParseBasic(header string) (id, secret string, err error) {
	if header == "" {
		return "", "", ErrInvalidClient.WithDescription("client authentication with HTTP Basic is required")
	}
	scheme, payload, _ := strings.Cut(header, " ")
	if !strings.EqualFold(scheme, "Basic") {
		return "", "", ErrInvalidClient.WithDescription("client authentication must use the HTTP Basic scheme")
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(payload))
	if err != nil {
		return "", "", ErrInvalidClient.WithDescription("the Basic credentials are not valid base64")
	}
	rawID, rawSecret, ok := strings.Cut(string(raw), ":")
	if !ok {
		return "", "", ErrInvalidClient.WithDescription("the Basic credentials have no colon between client id and secret")
	}
	if id, err = url.QueryUnescape(rawID); err != nil {
		return "", "", ErrInvalidClient.WithDescription("the client id is not form-encoded correctly")
	}
	if secret, err = url.QueryUnescape(rawSecret); err != nil {
		return "", "", ErrInvalidClient.WithDescription("the client secret is not form-encoded correctly")
	}
	if id == "" {
		return "", "", ErrInvalidClient.WithDescription("the client id is empty")
	}
	return id, secret, nil
}

// rawBasic returns the client id and secret of a Basic header as sent,
// without the form-decoding of ParseBasic, for clients such as curl -u that
// do not form-encode them.
func rawBasic(header string) (id, secret string, ok bool) {
	scheme, payload, _ := strings.Cut(header, " ")
	if !strings.EqualFold(scheme, "Basic") {
		return "", "", false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(payload))
	if err != nil {
		return "", "", false
	}
	return strings.Cut(string(raw), ":")
}

// ParseForm reads a token request body, which must be form-encoded (spec
// TOK-2). Failures are ErrInvalidRequest.
func ParseForm(contentType string, body []byte) (url.Values, error) {
	mt, _, err := mime.ParseMediaType(contentType)
	if contentType == "" || err != nil || mt != formMediaType {
		return nil, ErrInvalidRequest.WithDescription("the request body must be form-encoded (%s)", formMediaType)
	}
	form, err := url.ParseQuery(string(body))
	if err != nil {
		return nil, ErrInvalidRequest.WithDescription("the form-encoded body cannot be parsed")
	}
	return form, nil
}

// param returns the value of a parameter that may appear at most once (RFC
// 6749 §3.2: "Request and response parameters MUST NOT be included more than
// once"). An absent parameter gives "".
func param(form url.Values, name string) (string, error) {
	switch v := form[name]; len(v) {
	case 0:
		return "", nil
	case 1:
		return v[0], nil
	default:
		return "", ErrInvalidRequest.WithDescription("parameter %q is repeated", name)
	}
}

// required is param for a parameter that must be present and not empty.
func required(form url.Values, name string) (string, error) {
	v, err := param(form, name)
	if err != nil {
		return "", err
	}
	if v == "" {
		return "", ErrInvalidRequest.WithDescription("missing parameter %q", name)
	}
	return v, nil
}

// parseScope splits a scope parameter (RFC 6749 §3.3) into its tokens, in
// the order the client registration lists them. An empty value is no scope.
func parseScope(form url.Values, allowed []string) ([]string, error) {
	v, err := param(form, "scope")
	if err != nil || v == "" {
		return nil, err
	}
	asked := map[string]bool{}
	for _, s := range strings.Split(v, " ") {
		if s == "" {
			continue
		}
		asked[s] = true
	}
	var scopes []string
	for _, s := range allowed {
		if asked[s] {
			scopes = append(scopes, s)
			delete(asked, s)
		}
	}
	for s := range asked {
		return nil, ErrInvalidScope.WithDescription("scope %q is not allowed for this client", s)
	}
	return scopes, nil
}
