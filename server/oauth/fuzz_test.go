package oauth

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"mime"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"eventsvc/server/clock"
	"eventsvc/server/throttle"
)

// Seeds beyond the f.Add ones live in testdata/fuzz/<FuzzName>/. A short run
// of every target, as make test could do it:
//
//	for t in FuzzParseBasic FuzzBasicRoundTrip FuzzParseForm FuzzExchange; do
//		go test -run '^$' -fuzz "^$t\$" -fuzztime 3s ./server/oauth || exit 1
//	done

// basicHeader is the Authorization header of HTTP Basic credentials sent as
// they are, without form-encoding.
func basicHeader(userinfo string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(userinfo))
}

// basicVocabulary is every description ParseBasic gives, obtained from
// headers whose credentials are too short to count: a credential found in it
// is a word of the sentences, not an echo.
func basicVocabulary() string {
	var all []string
	for _, h := range []string{"", "Bearer x", "Basic !", basicHeader("x"), basicHeader("%zz:x"), basicHeader("x:%zz"), basicHeader(":x")} {
		var oe *Error
		if _, _, err := ParseBasic(h); errors.As(err, &oe) {
			all = append(all, oe.Description)
		}
	}
	return strings.Join(all, "\n")
}

// echoes returns the first credential of 6 bytes or more that description
// repeats and that is not a word of the vocabulary anyway.
func echoes(description, vocabulary string, credentials ...string) (string, bool) {
	for _, c := range credentials {
		if len(c) >= 6 && strings.Contains(description, c) && !strings.Contains(vocabulary, c) {
			return c, true
		}
	}
	return "", false
}

// checkInvalidClient asserts that err is an *Error with code invalid_client,
// status 401 and a description, and that the description does not repeat any
// of the credentials.
func checkInvalidClient(t *testing.T, header string, err error, vocabulary string, credentials ...string) {
	t.Helper()
	var oe *Error
	if !errors.As(err, &oe) {
		t.Fatalf("ParseBasic(%q): error %T %v is not an *oauth.Error", header, err, err)
	}
	if oe.Code != "invalid_client" || oe.Status != 401 || !errors.Is(err, ErrInvalidClient) {
		t.Fatalf("ParseBasic(%q): error %q status %d, want invalid_client 401", header, oe.Code, oe.Status)
	}
	if oe.Description == "" {
		t.Fatalf("ParseBasic(%q): invalid_client without a description", header)
	}
	if c, ok := echoes(oe.Description, vocabulary, credentials...); ok {
		t.Fatalf("ParseBasic(%q): description %q repeats the credential %q", header, oe.Description, c)
	}
}

// FuzzParseBasic checks ParseBasic on any header value:
//   - it never panics;
//   - on success the id is not empty, and the credentials survive a second
//     trip through form-encoding and base64 unchanged;
//   - a failure is an *Error invalid_client, status 401, with a description
//     that never repeats the id or the secret (as sent or form-decoded) nor
//     the base64 payload, when 6 bytes or longer and not a word of the
//     descriptions themselves (such as "client").
func FuzzParseBasic(f *testing.F) {
	f.Add(basicHeader("myApp:pass"))
	f.Add("Basic ")
	f.Add("Basic")
	f.Add(basicHeader("my%20app:p%3Ass"))
	f.Add(basicHeader("app:%zz"))
	vocabulary := basicVocabulary()
	f.Fuzz(func(t *testing.T, header string) {
		id, sec, err := ParseBasic(header)
		if err == nil {
			if id == "" {
				t.Fatalf("ParseBasic(%q) succeeded with an empty id", header)
			}
			again := basicHeader(url.QueryEscape(id) + ":" + url.QueryEscape(sec))
			id2, sec2, err := ParseBasic(again)
			if err != nil || id2 != id || sec2 != sec {
				t.Fatalf("ParseBasic(%q) = %q, %q; re-encoded as %q it gives %q, %q, %v", header, id, sec, again, id2, sec2, err)
			}
			return
		}
		if id != "" || sec != "" {
			t.Fatalf("ParseBasic(%q) failed (%v) but returned id %q secret %q", header, err, id, sec)
		}
		// Everything the header could carry as credentials.
		creds := []string{}
		_, payload, _ := strings.Cut(header, " ")
		payload = strings.TrimSpace(payload)
		creds = append(creds, payload)
		if raw, derr := base64.StdEncoding.DecodeString(payload); derr == nil {
			rawID, rawSecret, _ := strings.Cut(string(raw), ":")
			creds = append(creds, string(raw), rawID, rawSecret)
			if v, uerr := url.QueryUnescape(rawID); uerr == nil {
				creds = append(creds, v)
			}
			if v, uerr := url.QueryUnescape(rawSecret); uerr == nil {
				creds = append(creds, v)
			}
		}
		checkInvalidClient(t, header, err, vocabulary, creds...)
	})
}

// FuzzBasicRoundTrip checks that credentials form-encoded (RFC 6749 §2.3.1)
// and base64-encoded come back exactly from ParseBasic, whatever their
// bytes, with the scheme in any case and extra blanks around the payload;
// and that, sent as they are (curl -u), rawBasic gives them back when the id
// has no colon.
func FuzzBasicRoundTrip(f *testing.F) {
	f.Add("myApp", "pass")
	f.Add("my app", "p:ss")
	f.Add("a+b/c%d", "%zz")
	f.Add("\xff\xfe", "\x00")
	f.Add("app", "")
	f.Fuzz(func(t *testing.T, id, sec string) {
		if id == "" {
			t.Skip("an empty client id is refused by design")
		}
		payload := base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(id) + ":" + url.QueryEscape(sec)))
		for _, header := range []string{"Basic " + payload, "basic  " + payload + " ", "BASIC " + payload} {
			gotID, gotSecret, err := ParseBasic(header)
			if err != nil || gotID != id || gotSecret != sec {
				t.Fatalf("ParseBasic(%q) = %q, %q, %v; want %q, %q", header, gotID, gotSecret, err, id, sec)
			}
		}
		if !strings.Contains(id, ":") {
			header := basicHeader(id + ":" + sec)
			rawID, rawSecret, ok := rawBasic(header)
			if !ok || rawID != id || rawSecret != sec {
				t.Fatalf("rawBasic(%q) = %q, %q, %v; want %q, %q", header, rawID, rawSecret, ok, id, sec)
			}
		}
	})
}

// FuzzParseForm checks ParseForm on any content type and body:
//   - it never panics;
//   - a failure is an *Error invalid_request, status 400, with a
//     description;
//   - it succeeds only for the media type application/x-www-form-urlencoded
//     (parameters and case aside);
//   - on success the values are those url.ParseQuery gives, and they
//     round-trip through url.Values.Encode unchanged (every key, every value,
//     in order).
func FuzzParseForm(f *testing.F) {
	f.Add(formMediaType, []byte("grant_type=password&username=u%40example.com&password=pw"))
	f.Add(formMediaType+"; charset=UTF-8", []byte("a=1&a=2&b"))
	f.Add("application/json", []byte(`{"grant_type":"password"}`))
	f.Add(formMediaType, []byte("a=%zz"))
	f.Add("", []byte(""))
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		form, err := ParseForm(contentType, body)
		if err != nil {
			var oe *Error
			if !errors.As(err, &oe) || oe.Code != "invalid_request" || oe.Status != 400 || oe.Description == "" {
				t.Fatalf("ParseForm(%q, %q): error %#v, want invalid_request 400 with a description", contentType, body, err)
			}
			if form != nil {
				t.Fatalf("ParseForm(%q, %q) failed but returned %v", contentType, body, form)
			}
			return
		}
		if mt, _, merr := mime.ParseMediaType(contentType); merr != nil || mt != formMediaType {
			t.Fatalf("ParseForm accepted content type %q (media type %q, %v)", contentType, mt, merr)
		}
		if form == nil {
			t.Fatalf("ParseForm(%q, %q) succeeded with a nil form", contentType, body)
		}
		want, perr := url.ParseQuery(string(body))
		if perr != nil || !reflect.DeepEqual(map[string][]string(form), map[string][]string(want)) {
			t.Fatalf("ParseForm(%q, %q) = %v; url.ParseQuery gives %v, %v", contentType, body, form, want, perr)
		}
		again, perr := url.ParseQuery(form.Encode())
		if perr != nil {
			t.Fatalf("the encoded form %q does not parse: %v", form.Encode(), perr)
		}
		if len(again) != len(form) {
			t.Fatalf("form %q round-trips to %q", form, again)
		}
		for k, vs := range form {
			if !slices.Equal(again[k], vs) {
				t.Fatalf("parameter %q: %q round-trips to %q", k, vs, again[k])
			}
		}
	})
}

// Credentials of the fuzzed token endpoint.
const (
	fuzzSecret      = "fuzz-s3cret"
	fuzzOtherSecret = "other-s3cret"
	// fuzzRefreshToken is the refresh token issued to "app" for
	// u@example.com when the endpoint is built: the bytes 0 to 31, drawn
	// from a fixed reader, so that the seeds can use it.
	fuzzRefreshToken = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8"
)

// Limits of the fuzzed endpoint's Guard: 3 failures within 15 minutes lock a
// key for 5 minutes, on a manual clock that FuzzExchange moves one minute
// forward before each exchange, so that locks come and go.
const (
	fuzzFailures = 3
	fuzzWindow   = 15 * time.Minute
	fuzzLockout  = 5 * time.Minute
)

// fuzzEndpoint is testEndpoint's endpoint (bcrypt cost 4, client "app",
// account u@example.com / pw) plus a client "other" with the read scope
// only, one refresh token, of "app", and a Guard on the returned clock.
func fuzzEndpoint(f testing.TB) (*TokenEndpoint, *clock.Manual) {
	f.Helper()
	e := testEndpoint(f, fuzzSecret, Client{
		ID: "other", SecretHash: testHash(f, fuzzOtherSecret), GrantTypes: []string{GrantPassword, GrantRefreshToken},
		Scopes: []string{ScopeRead}, ResourceIDs: []string{"event"},
	})
	store := e.Store.(*Store)
	fixed := make([]byte, 2*tokenBytes)
	for i := range fixed {
		fixed[i] = byte(i)
	}
	store.random = bytes.NewReader(fixed)
	issued, err := store.Issue(Grant{ClientID: "app", AccountID: 1, Username: "u@example.com",
		Scopes: []string{ScopeRead, ScopeWrite}, ResourceIDs: []string{"event"}})
	store.random = rand.Reader
	if err != nil || issued.RefreshToken != fuzzRefreshToken {
		f.Fatalf("setup refresh token %q, %v; want %q", issued.RefreshToken, err, fuzzRefreshToken)
	}
	guardClock := clock.NewManual(time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC))
	e.Guard = throttle.New(throttle.Limits{Failures: fuzzFailures, Window: fuzzWindow, Lockout: fuzzLockout, MaxKeys: throttle.DefaultMaxKeys}, guardClock)
	return e, guardClock
}

// The success branch of FuzzExchange is reachable: its seeds get tokens.
func TestFuzzEndpointGrants(t *testing.T) {
	e, _ := fuzzEndpoint(t)
	for _, tt := range []struct{ authorization, body string }{
		{basicHeader("app:" + fuzzSecret), passwordGrant},
		{basicHeader("app:" + fuzzSecret), "grant_type=refresh_token&token=" + fuzzRefreshToken},
		{basicHeader("other:" + fuzzOtherSecret), passwordGrant + "&scope=read"},
	} {
		if _, err := e.Exchange(tt.authorization, formMediaType, []byte(tt.body)); err != nil {
			t.Errorf("Exchange(%q, %q): %v", tt.authorization, tt.body, err)
		}
	}
	_, err := e.Exchange(basicHeader("other:"+fuzzOtherSecret), formMediaType, []byte("grant_type=refresh_token&token="+fuzzRefreshToken))
	if !errors.Is(err, ErrInvalidGrant) {
		t.Errorf("refresh by another client: err = %v, want invalid_grant", err)
	}
}

// FuzzExchange checks TokenEndpoint.Exchange on any Authorization header,
// content type and body:
//   - it never panics;
//   - every error is an *Error (errors.As) with a 4xx status, a code and a
//     description, and an invalid_client description never repeats the
//     secret of the header (6 bytes or more, not a word of the sentences);
//   - only too_many_attempts (the Guard) has a Retry-After, and it does:
//     whole seconds, at most the lockout;
//   - a success happens only when the header carries, form-decoded or as
//     sent, the id and the secret of a registered client: "app" with its
//     secret, or "other" with its secret for the password grant only (the
//     one refresh token there is belongs to "app");
//   - a success is a bearer token response: access and refresh tokens, 600
//     seconds, scopes among the client's.
//
// Each exec costs at most three bcrypt comparisons at cost 4 (verified
// client credentials are cached by the endpoint). The Guard and the token
// store keep state from one exec to the next, as a running server does.
func FuzzExchange(f *testing.F) {
	e, guardClock := fuzzEndpoint(f)
	f.Add(basicHeader("app:"+fuzzSecret), formMediaType, []byte(passwordGrant+"&scope=read"))
	f.Add(basicHeader("app:"+fuzzSecret), formMediaType, []byte("grant_type=refresh_token&token="+fuzzRefreshToken))
	f.Add(basicHeader("other:"+fuzzOtherSecret), formMediaType, []byte(passwordGrant))
	f.Add(basicHeader("app:wrong-secret"), formMediaType, []byte(passwordGrant))
	f.Add("Basic", "", []byte{})
	_, wrong := e.Exchange(basicHeader("app:x"), formMediaType, nil)
	vocabulary := basicVocabulary() + "\n" + wrong.Error()
	f.Fuzz(func(t *testing.T, authorization, contentType string, body []byte) {
		guardClock.Advance(time.Minute)
		resp, err := e.Exchange(authorization, contentType, body)
		id, sec, parseErr := ParseBasic(authorization)
		rawID, rawSecret, rawOK := rawBasic(authorization)
		if err != nil {
			var oe *Error
			if !errors.As(err, &oe) {
				t.Fatalf("Exchange(%q, %q, %q): error %T %v is not an *oauth.Error", authorization, contentType, body, err, err)
			}
			if oe.Status < 400 || oe.Status > 499 || oe.Code == "" || oe.Description == "" {
				t.Fatalf("Exchange(%q, %q, %q): error %q status %d description %q; want a 4xx with a code and a description",
					authorization, contentType, body, oe.Code, oe.Status, oe.Description)
			}
			if (oe.Code == ErrTooManyAttempts.Code) != (oe.RetryAfter != 0) {
				t.Fatalf("Exchange(%q, %q, %q): error %q with Retry-After %v", authorization, contentType, body, oe.Code, oe.RetryAfter)
			}
			if oe.RetryAfter < 0 || oe.RetryAfter > fuzzLockout || oe.RetryAfter%time.Second != 0 {
				t.Fatalf("Exchange(%q, %q, %q): Retry-After %v, want whole seconds up to %v", authorization, contentType, body, oe.RetryAfter, fuzzLockout)
			}
			if oe.Code == "invalid_client" {
				if c, ok := echoes(oe.Description, vocabulary, sec, rawSecret); ok {
					t.Fatalf("Exchange(%q, ...): description %q repeats the client secret %q", authorization, oe.Description, c)
				}
			}
			if resp != (TokenResponse{}) {
				t.Fatalf("Exchange failed (%v) but returned %+v", err, resp)
			}
			return
		}
		is := func(wantID, wantSecret string) bool {
			return (parseErr == nil && id == wantID && sec == wantSecret) || (rawOK && rawID == wantID && rawSecret == wantSecret)
		}
		form, _ := url.ParseQuery(string(body))
		grant := form.Get("grant_type")
		var scopes []string
		switch {
		case is("app", fuzzSecret):
			scopes = []string{ScopeRead, ScopeWrite}
		case is("other", fuzzOtherSecret) && grant == GrantPassword:
			scopes = []string{ScopeRead}
		default:
			t.Fatalf("Exchange(%q, %q, %q) succeeded, but the header decodes to %q/%q (form-decoded, %v) and %q/%q (as sent, %v), no registered client allowed the %q grant",
				authorization, contentType, body, id, sec, parseErr, rawID, rawSecret, rawOK, grant)
		}
		if resp.TokenType != TokenTypeBearer || resp.AccessToken == "" || resp.RefreshToken == "" || resp.ExpiresIn != 600 {
			t.Fatalf("Exchange(%q, %q, %q) = %+v, want a bearer token response", authorization, contentType, body, resp)
		}
		if resp.Scope == "" {
			t.Fatalf("Exchange(%q, %q, %q) = %+v, without scope", authorization, contentType, body, resp)
		}
		for _, s := range strings.Split(resp.Scope, " ") {
			if !slices.Contains(scopes, s) {
				t.Fatalf("Exchange(%q, %q, %q) granted scope %q, the client has %v", authorization, contentType, body, s, scopes)
			}
		}
	})
}
