package repro

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"mime"
	"net/url"
	"slices"
	"sort"
	"strings"

	"eventsvc/internal/redact"
)

// Var is a value of the run that a script reads from a variable, such as
// the client secret from CONFORMANCE_CLIENT_SECRET.
type Var struct {
	Value, Name string
}

// Derived is a value made from a token the script holds in a variable
// (a near-miss of an access token, which no account holds), with Written,
// the shell expression that makes it from that variable's name.
type Derived struct {
	Value, Of string
	Written   func(name string) string
}

// Shared is a token a script's requests use but none of its answers
// gives (a token the run shared among its scenarios): the script asks for
// it first, with a password grant, and keeps it in the variable Name.
type Shared struct {
	Token, Name      string
	UserVar, PassVar string // the variables of the account's username and password
	What             string // such as "user's", for the script's comment
	// Field is the field of the grant's answer that holds it:
	// "access_token" when empty, or "refresh_token".
	Field string
}

// Script is what a reproduction script is made of.
type Script struct {
	// Title says what it reproduces, such as `"A scenario" (file:line)`.
	Title string
	// Base is the target's address, the default of $BASE_URL.
	Base string
	// Vars are the run's credentials and the variables that hold them.
	Vars []Var
	// ClientID and ClientSecret are the client's credentials, with which
	// Shared tokens are asked for.
	ClientID, ClientSecret string
	// BasicAsIs sends Basic credentials as they are, not form-encoded
	// first (target.Credentials.BasicAsIs).
	BasicAsIs bool
	// Shared are the tokens to ask for first.
	Shared []Shared
	// Derived are the values the requests send made from tokens:
	// written from the variable that holds the token, as the script
	// comes to hold it.
	Derived []Derived
	// Log is the requests to send again, in order.
	Log []Exchange
	// LastFails says that the last request of Log is the one the failure
	// is about: the script says so.
	LastFails bool
	// Redactor masks the secrets it knows in every value the script
	// writes, before the value is quoted: a script must not be masked
	// afterwards, which could cut its quoting. Nil masks nothing.
	Redactor *redact.Redactor
}

// scriptHead defines what the script's steps use: formenc encodes a value
// as application/x-www-form-urlencoded does (RFC 6749 §2.3.1 asks it of
// client credentials); vis writes control characters as "?", C0 and DEL
// and the C1 controls encoded in UTF-8 (a carriage return at the end of a
// line is dropped), so that no escape sequence of an answer reaches a
// UTF-8 terminal; say prints a line through vis; show
// prints an answer with its tokens masked, through vis; field reads a
// JSON string property from an answer, and header a header: what they
// read is only ever used in double quotes.
const scriptHead = `set -u
formenc() {
  s=$1 out=
  while [ -n "$s" ]; do
    c=${s%"${s#?}"} s=${s#?}
    case $c in
      [A-Za-z0-9._~-]) out=$out$c ;;
      ' ') out=$out+ ;;
      *) out=$out$(printf '%%%02X' "'$c") ;;
    esac
  done
  printf '%s' "$out"
}
cr=$(printf '\r') ctl=$(printf '[\001-\010\013-\037\177]') c1=$(printf '\302[\200-\237]')
vis() {
  LC_ALL=C sed -e "s/$cr\$//" -e "s/$ctl/?/g" -e "s/$c1/?/g"
}
say() {
  printf '%s\n' "$1" | vis
}
show() {
  printf '%s\n\n' "$1" | LC_ALL=C sed -e 's/\("access_token" *: *"\)[^"]*"/\1***"/g' -e 's/\("refresh_token" *: *"\)[^"]*"/\1***"/g' | vis
}
field() {
  printf '%s' "$2" | tr -d '\r' | sed -n "s/.*\"$1\" *: *\"\([^\"]*\)\".*/\1/p" | head -n 1
}
header() {
  printf '%s' "$2" | tr -d '\r' | grep -i "^$1:" | head -n 1 | sed 's/^[^:]*: *//'
}
`

// String is the script: a POSIX shell script that sends the requests of
// Log again with curl to $BASE_URL (Base, unless set), the run's
// credentials read from their variables, the tokens taken from the answers
// as the run took them, the values the run made up (an invalid token, a
// wrong secret) written as they are. Each request's heading shows what it
// requests, as it is requested. It holds no secret, and its output masks
// the tokens of the answers; every value in it is quoted (shell.go).
func (s Script) String() string {
	subs := slices.Clone(s.Vars)
	base := strings.TrimRight(s.Base, "/")
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/sh\n# Reproduces %s of the Event Service conformance suite:\n", comment(s.mask(s.Title)))
	if s.LastFails {
		b.WriteString("# its requests, in order; the failing one comes last.\n")
	} else {
		b.WriteString("# its requests, in order, up to the failure.\n")
	}
	b.WriteString("# Set the CONFORMANCE_* variables as for the run, and BASE_URL for another target.\n")
	fmt.Fprintf(&b, "if [ -z \"${BASE_URL:-}\" ]; then BASE_URL=%s; fi\n", quote(comment(s.mask(base))))
	b.WriteString(scriptHead)
	for _, sh := range s.Shared {
		if sh.Token == "" || !usedUnissued(s.Log, sh.Token) && !slices.ContainsFunc(s.Derived, func(d Derived) bool { return d.Of == sh.Token && usedUnissued(s.Log, d.Value) }) {
			continue
		}
		fmt.Fprintf(&b, "\n# The %s token the run shared among its checks.\n", comment(sh.What))
		fmt.Fprintf(&b, "out=$(curl -sS -i -g -X POST \"$BASE_URL/oauth/token\" %s --data-urlencode grant_type=password --data-urlencode %s --data-urlencode %s)\n",
			s.basicExpr("Basic", s.ClientID, s.ClientSecret, subs), `"username=${`+sh.UserVar+`}"`, `"password=${`+sh.PassVar+`}"`)
		field := sh.Field
		if field == "" {
			field = "access_token"
		}
		fmt.Fprintf(&b, "%s=$(field %s \"$out\")\n", sh.Name, field)
		subs = append(subs, Var{sh.Token, "${" + sh.Name + "}"})
	}
	subs = append(subs, Var{base, "${BASE_URL}"})
	for i, x := range s.Log {
		n := i + 1
		subs = s.derive(subs)
		var failing []segment
		if s.LastFails && n == len(s.Log) {
			failing = text(" (the failing request)")
		}
		fmt.Fprintf(&b, "\nsay %s\n", word(text(fmt.Sprintf("== %d. %s ", n, x.Method)), s.split(x.URL, subs), failing))
		// -g: an address is sent as it is, never expanded as curl's
		// globs ({a,b}, [1-2]) into several requests.
		args := []string{"-sS", "-i", "-g", "--path-as-is", "-X", method(x.Method), word(s.split(x.URL, subs))}
		for _, name := range slices.Sorted(maps.Keys(x.Header)) {
			for _, v := range x.Header[name] {
				switch strings.ToLower(name) {
				case "content-length", "user-agent", "accept-encoding", "host":
				case "authorization":
					args = append(args, s.authorizationArg(v, subs))
				default:
					args = append(args, "-H", word(s.split(name+": "+v, subs)))
				}
			}
		}
		stdin, body := s.bodyArgs(x.Header.Get("Content-Type"), x.Body, subs)
		args = append(args, body...)
		fmt.Fprintf(&b, "out=$(%scurl %s)\nshow \"$out\"\n", stdin, strings.Join(args, " "))
		for _, f := range []string{"access_token", "refresh_token"} {
			if tok := jsonString(x.RespBody, f); tok != "" {
				v := fmt.Sprintf("%s_%d", strings.ToUpper(strings.TrimSuffix(f, "_token")), n)
				fmt.Fprintf(&b, "%s=$(field %s \"$out\")\n", v, f)
				subs = append(subs, Var{tok, "${" + v + "}"})
			}
		}
		// What a creation made is where its Location says, in this run as
		// in the one recorded: the requests after it go there.
		if loc := x.RespHeader.Get("Location"); loc != "" && x.Method == "POST" && x.Status >= 200 && x.Status <= 299 {
			if u, err := url.Parse(x.URL); err == nil {
				if ref, err := url.Parse(loc); err == nil && ref.IsAbs() {
					v := fmt.Sprintf("LOCATION_%d", n)
					fmt.Fprintf(&b, "%s=$(header Location \"$out\")\n", v)
					subs = append(subs, Var{u.ResolveReference(ref).String(), "${" + v + "}"})
				}
			}
		}
	}
	return b.String()
}

// derive adds to subs each value of Derived made from a value subs
// writes as a variable, written from that variable.
func (s Script) derive(subs []Var) []Var {
	for _, d := range s.Derived {
		if slices.ContainsFunc(subs, func(v Var) bool { return v.Value == d.Value }) {
			continue
		}
		for _, v := range subs {
			name, ok := strings.CutPrefix(v.Name, "${")
			if name, ok2 := strings.CutSuffix(name, "}"); v.Value == d.Of && ok && ok2 && !strings.ContainsAny(name, "${}%") {
				subs = append(subs, Var{d.Value, d.Written(name)})
				break
			}
		}
	}
	return subs
}

// usedUnissued reports whether token is sent by a request of log before
// any answer of log gives it.
func usedUnissued(log []Exchange, token string) bool {
	for _, x := range log {
		if strings.Contains(string(x.RespBody), token) {
			return false
		}
		if strings.Contains(x.URL, token) || strings.Contains(strings.Join(x.Header.Values("Authorization"), " "), token) || strings.Contains(string(x.Body), token) {
			return true
		}
	}
	return false
}

// authorizationArg is the curl argument of an Authorization header: a
// Basic credential rebuilt from the credentials' variables, a Bearer
// token from a variable; the scheme as it was written.
func (s Script) authorizationArg(v string, subs []Var) string {
	scheme, cred, _ := strings.Cut(v, " ")
	if !strings.EqualFold(scheme, "Basic") {
		return "-H " + word(s.split("Authorization: "+v, subs))
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred))
	if err != nil {
		return "-H " + word(s.split("Authorization: "+v, subs))
	}
	id, secret, _ := strings.Cut(string(raw), ":")
	if !s.BasicAsIs {
		if u, err := url.QueryUnescape(id); err == nil {
			id = u
		}
		if u, err := url.QueryUnescape(secret); err == nil {
			secret = u
		}
	}
	return s.basicExpr(scheme, id, secret, subs)
}

// basicExpr is the curl argument of a Basic credential for id and secret,
// form-encoded first unless the target takes them as they are.
func (s Script) basicExpr(scheme, id, secret string, subs []Var) string {
	enc := func(v string) string {
		w := word(s.split(v, subs))
		if s.BasicAsIs {
			return w
		}
		return `"$(formenc ` + w + `)"`
	}
	return fmt.Sprintf(`-H "Authorization: %s $(printf '%%s:%%s' %s %s | base64 | tr -d '\n')"`, inDoubleQuotes(comment(scheme)), enc(id), enc(secret))
}

// method is an HTTP method as a curl argument: as it is when it is a
// token of letters, as the run sends them; quoted otherwise.
func method(m string) string {
	if m != "" && strings.Trim(m, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == "" {
		return m
	}
	return word(text(m))
}

// bodyArgs are the curl arguments of a body: a form field by field,
// anything else as it is. A body that is not printable text (a NUL, an
// escape sequence, bytes that are not UTF-8) is piped from printf: stdin
// is that command and its pipe, to write before curl.
func (s Script) bodyArgs(contentType string, body []byte, subs []Var) (stdin string, args []string) {
	if len(body) == 0 {
		return "", nil
	}
	if mt, _, _ := mime.ParseMediaType(contentType); mt == "application/x-www-form-urlencoded" {
		if form, err := url.ParseQuery(string(body)); err == nil {
			var out []string
			for _, pair := range strings.Split(string(body), "&") {
				k, _, _ := strings.Cut(pair, "=")
				name, _ := url.QueryUnescape(k)
				if vs, ok := form[name]; ok && len(vs) > 0 {
					field := append(s.split(name+"=", nil), s.split(vs[0], subs)...)
					if !printable(field) {
						out = nil
						break
					}
					out = append(out, "--data-urlencode", word(field))
					form[name] = vs[1:]
				}
			}
			if out != nil {
				return "", out
			}
		}
	}
	segs := s.split(string(body), subs)
	if !printable(segs) {
		return printfCommand(segs) + " | ", []string{"--data-binary", "@-"}
	}
	return "", []string{"--data-binary", word(segs)}
}

// jsonString reads a string property of a JSON object body, or "".
func jsonString(body []byte, name string) string {
	var obj map[string]any
	if json.Unmarshal(body, &obj) != nil {
		return ""
	}
	str, _ := obj[name].(string)
	return str
}

// ScriptOf is the reproduction script of s.Log, exchanges of a scenario or
// of a sequence that the registry judged, titled s.Title, the last of
// them the failing one: its address, s.Base, is that of the first of them
// (s.Base as it is when there is none). Of the access tokens the log
// sends, those holders names (by token, the account's username: user, the
// run's user, or other, its other user) and no answer of the log gives
// are asked for first, with the account's password grant, after those of
// s.Shared. s.Redactor masks what the script shows: one that knows the
// run's secrets and the tokens it was issued.
func ScriptOf(s Script, user, other string, holders map[string]string) string {
	if len(s.Log) > 0 {
		if u, err := url.Parse(s.Log[0].URL); err == nil {
			s.Base = u.Scheme + "://" + u.Host
		}
	}
	var shared []Shared
	for tok, account := range holders {
		switch account {
		case user:
			shared = append(shared, Shared{Token: tok, Name: "ACCESS_USER", UserVar: "CONFORMANCE_USERNAME", PassVar: "CONFORMANCE_PASSWORD", What: "user's"})
		case other:
			shared = append(shared, Shared{Token: tok, Name: "ACCESS_OTHER", UserVar: "CONFORMANCE_OTHER_USERNAME", PassVar: "CONFORMANCE_OTHER_PASSWORD", What: "other user's"})
		}
	}
	sort.Slice(shared, func(i, j int) bool { return shared[i].Name < shared[j].Name })
	s.Shared = append(slices.Clone(s.Shared), shared...)
	s.LastFails = true
	return s.String()
}
