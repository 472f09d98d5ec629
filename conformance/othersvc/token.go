package othersvc

// The token endpoint of the second implementation (othersvc.go).

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

func (o *otherSvc) clientOK(r *http.Request) bool {
	id, secret, ok := r.BasicAuth()
	if o.Flaws.BasicCaseSensitive && !strings.HasPrefix(r.Header.Get("Authorization"), "Basic ") {
		return false
	}
	if ok && o.Flaws.UserAsClient {
		uid, _ := url.QueryUnescape(id)
		usecret, _ := url.QueryUnescape(secret)
		if uid == o.Creds.Username && usecret == o.Creds.Password {
			return true
		}
	}
	return ok && id == o.Creds.ClientID && subtle.ConstantTimeCompare([]byte(secret), []byte(o.Creds.ClientSecret)) == 1
}

func (o *otherSvc) token(w http.ResponseWriter, r *http.Request) {
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	_, _, basic := r.BasicAuth()
	refreshing := r.FormValue("grant_type") == "refresh_token"
	client := o.clientOK(r) ||
		o.Flaws.NoClientAuth && r.Header.Get("Authorization") == "" ||
		o.Flaws.RefreshWithoutClient && refreshing && r.Header.Get("Authorization") == "" ||
		o.Flaws.RefreshAnyClient && refreshing && basic
	f := r.PostForm
	if _, err := r.Cookie("XSRF-TOKEN"); err != nil && o.Flaws.CsrfRequired {
		otherError(w, http.StatusForbidden, "no CSRF token")
		return
	}
	switch {
	case !client && basic && !o.Flaws.BadClient400:
		w.Header().Set("WWW-Authenticate", `Basic realm="other"`)
		otherError(w, http.StatusUnauthorized, "unknown client")
		return
	case !client:
		otherError(w, http.StatusBadRequest, "unknown client")
		return
	case mt == "application/json" && o.Flaws.JsonBodyAccepted:
		var body map[string]string
		if json.NewDecoder(r.Body).Decode(&body) != nil {
			otherError(w, http.StatusBadRequest, "bad JSON")
			return
		}
		f = url.Values{}
		for k, v := range body {
			f.Set(k, v)
		}
	case mt != "application/x-www-form-urlencoded" || r.ParseForm() != nil:
		otherError(w, http.StatusBadRequest, "send a form")
		return
	default:
		f = r.PostForm
	}
	var user, refresh string
	switch grant := f.Get("grant_type"); {
	case grant == "password":
		var ok bool
		if user, ok = o.passwordUser(w, f); !ok {
			return
		}
	case grant == "refresh_token" && (!f.Has("refresh_token") || o.Flaws.RefreshTokenParamOnly):
		param := "token"
		if o.Flaws.RefreshTokenParamOnly {
			param = "refresh_token"
		}
		o.mu.Lock()
		g, ok := o.refreshGrant(f.Get(param))
		if !ok && o.Flaws.AccessAsRefresh {
			g, ok = o.access[f.Get("token")]
		}
		o.mu.Unlock()
		if !ok || !o.Clock.Now().Before(g.expires) {
			otherError(w, http.StatusBadRequest, "unknown or expired refresh token")
			return
		}
		user, refresh = g.user, f.Get(param)
		if o.Flaws.RefreshSlidesExpiry {
			o.mu.Lock()
			o.refresh[refresh] = otherGrant{g.user, o.Clock.Now().Add(otherRefreshTTL)}
			o.mu.Unlock()
		}
		switch {
		case o.Flaws.RefreshLosesUser:
			user = "refreshed:" + user
		case o.Flaws.RefreshAsFirstUser:
			user = o.Creds.Username
		case o.Flaws.RefreshReadsUsername && f.Get("username") != "":
			user = f.Get("username") // the handler the password grant shares
		}
		if o.Flaws.RefreshSingleUse {
			o.mu.Lock()
			delete(o.refresh, refresh)
			o.mu.Unlock()
		}
	case grant == "client_credentials" && o.Flaws.ClientCredentials:
		user = o.Creds.Username
	default:
		otherError(w, http.StatusBadRequest, `grant types: "password", or "refresh_token" with "token"`)
		return
	}
	o.issue(w, user, refresh, f.Get("scope"))
}

// passwordUser is the user a password grant of form f logs in; false, with
// the error answered, when it logs in nobody.
func (o *otherSvc) passwordUser(w http.ResponseWriter, f url.Values) (string, bool) {
	username := f.Get("username")
	if o.Flaws.UsernameNotEmail {
		username += "@" + strings.SplitN(o.Creds.Username, "@", 2)[1]
	}
	if o.Flaws.TokenSwapRace {
		// The user logging in, kept on the handler while the
		// password is checked.
		o.mu.Lock()
		o.loggingIn = username
		o.mu.Unlock()
		time.Sleep(otherRoundTrip)
	}
	want, known := map[string]string{o.Creds.Username: o.Creds.Password, o.Creds.OtherUsername: o.Creds.OtherPass}[username]
	password := f.Get("password")
	if o.Flaws.PasswordPrefix && len(password) > len(want) {
		password = password[:len(want)] // a fixed-width column, or crypt(3) reading eight characters
	}
	same := subtle.ConstantTimeCompare([]byte(password), []byte(want)) == 1 || o.Flaws.PasswordFolded && strings.EqualFold(password, want)
	if !known || !same && !o.Flaws.PasswordNotChecked {
		otherError(w, http.StatusBadRequest, "wrong username or password")
		return "", false
	}
	user := username
	if names := f["username"]; o.Flaws.UsernameLastWins {
		user = names[len(names)-1] // the code that issues the token reads the form as a map, the last copy winning
	}
	if o.Flaws.TokenSwapRace {
		o.mu.Lock()
		user = o.loggingIn
		o.mu.Unlock()
	}
	o.mu.Lock()
	if o.client == "" {
		o.client = user
	}
	taken := o.client != user && o.Flaws.OneUserPerClient
	o.mu.Unlock()
	if taken {
		otherError(w, http.StatusBadRequest, "this client belongs to another user")
		return "", false
	}
	return user, true
}

// issue answers with a new access token, and a new refresh token unless
// refresh is the one the caller used.
func (o *otherSvc) issue(w http.ResponseWriter, user, refresh, asked string) {
	now, access := o.Clock.Now(), o.newToken()
	ttl := o.AccessTTL
	if ttl == 0 {
		ttl = otherAccessTTL
	}
	refreshed := refresh != ""
	if refreshed && o.Flaws.RefreshLivesAnHour {
		ttl = otherRefreshTTL // the refresh token's setting
	}
	o.mu.Lock()
	if refresh == "" || !o.Flaws.RefreshedTokensDead {
		o.access[access] = otherGrant{user, now.Add(ttl)}
	}
	if refreshed && o.Choices.Rotate {
		delete(o.refresh, refresh)
		refresh = ""
	}
	if refresh == "" {
		refresh = o.newToken()
		o.refresh[refresh] = otherGrant{user, now.Add(otherRefreshTTL)}
	}
	if o.Flaws.SessionCookie {
		id := otherUUID()
		o.sessions[id] = user
		http.SetCookie(w, &http.Cookie{Name: "OTHERSESSION", Value: id, Path: "/", HttpOnly: true})
	}
	o.mu.Unlock()
	tokenType := "bearer"
	if o.Flaws.TokenTypeMAC {
		tokenType = "mac"
	}
	body := map[string]any{
		"access_token": access, "token_type": tokenType, "refresh_token": refresh,
		"expires_in": int(ttl / time.Second), "scope": "read write",
	}
	if o.Flaws.ScopeReadOnly {
		body["scope"] = "read"
	}
	if o.Flaws.ScopeAsAsked && asked != "" {
		body["scope"] = asked
	}
	if o.Flaws.ExpiresInString {
		body["expires_in"] = strconv.Itoa(int(ttl / time.Second))
	}
	if o.Flaws.NoRefreshToken && !refreshed {
		delete(body, "refresh_token")
	}
	if !o.Flaws.TokensCacheable && !(refreshed && o.Flaws.RefreshNotNoStore) {
		w.Header().Set("Cache-Control", "no-store")
	}
	otherJSON(w, http.StatusOK, body)
}

// newToken is a new token: a UUID, or with OpaqueTokens 32 random bytes
// in base64url, whose letters' case tells tokens apart.
func (o *otherSvc) newToken() string {
	if !o.Choices.OpaqueTokens {
		return otherUUID()
	}
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}

func otherUUID() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	b[6], b[8] = b[6]&0x0f|0x40, b[8]&0x3f|0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// refreshGrant is the grant of the refresh token token: with
// RefreshFolded, of one that differs from it by case alone. o.mu is held.
func (o *otherSvc) refreshGrant(token string) (otherGrant, bool) {
	if g, ok := o.refresh[token]; ok || !o.Flaws.RefreshFolded {
		return g, ok
	}
	for k, g := range o.refresh {
		if strings.EqualFold(k, token) {
			return g, true
		}
	}
	return otherGrant{}, false
}
