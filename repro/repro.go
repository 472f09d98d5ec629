// Package repro writes down a run's requests and their answers, and turns
// them into a shell script that sends them again with curl: the
// reproduction of a failure, the same for a failed scenario and for a
// finding of the explorer.
package repro

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"mime"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"

	"eventsvc/redact"
)

// Exchange is one request as it was sent, and its answer. Its fields hold
// secrets as they were; only Transcript is masked, and only Transcript is
// ever shown as it is.
type Exchange struct {
	Method, URL string
	Header      http.Header
	Body        []byte
	Status      int
	RespHeader  http.Header
	RespBody    []byte
	// Transcript is the request and the answer, masked, as failures show
	// them.
	Transcript string
}

// Record writes down req, sent with body, and its answer resp with
// respBody (nil when no answer came), masked by r in the transcript.
func Record(r *redact.Redactor, req *http.Request, body []byte, resp *http.Response, respBody []byte) Exchange {
	x := Exchange{Method: req.Method, URL: req.URL.String(), Header: req.Header.Clone(), Body: body}
	x.Transcript = "request:\n" + indent(RequestText(r, req, body))
	if resp != nil {
		x.Status, x.RespHeader, x.RespBody = resp.StatusCode, resp.Header.Clone(), respBody
		x.Transcript += "response:\n" + indent(ResponseText(r, resp, respBody))
	}
	return x
}

// RequestText is a request as a failure shows it: its line, its headers
// and its body, masked.
func RequestText(r *redact.Redactor, req *http.Request, body []byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", req.Method, r.String(req.URL.String()))
	writeHeader(&b, r.Header(req.Header))
	if len(body) > 0 {
		fmt.Fprintf(&b, "\n%s\n", r.Body(req.Header.Get("Content-Type"), body))
	}
	return b.String()
}

// ResponseText is an answer as a failure shows it, masked.
func ResponseText(r *redact.Redactor, resp *http.Response, body []byte) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s\n", resp.Proto, resp.Status)
	writeHeader(&b, r.Header(resp.Header))
	if len(body) > 0 {
		fmt.Fprintf(&b, "\n%s\n", r.Body(resp.Header.Get("Content-Type"), body))
	}
	return b.String()
}

// Transcript joins a request's and an answer's texts as Exchange.Transcript
// holds them; response may be "" when no answer came.
func Transcript(request, response string) string {
	t := "request:\n" + indent(request)
	if response != "" {
		t += "response:\n" + indent(response)
	}
	return t
}

func writeHeader(b *strings.Builder, h http.Header) {
	for _, n := range slices.Sorted(maps.Keys(h)) {
		for _, v := range h[n] {
			fmt.Fprintf(b, "%s: %s\n", n, v)
		}
	}
}

func indent(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return "    " + strings.Join(lines, "\n    ") + "\n"
}

// Var is a value of the run that a script reads from a variable, such as
// the client secret from CONFORMANCE_CLIENT_SECRET.
type Var struct {
	Value, Name string
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
	// first (steps.Credentials.BasicAsIs).
	BasicAsIs bool
	// Shared are the tokens to ask for first.
	Shared []Shared
	// Log is the requests to send again, in order.
	Log []Exchange
}

// scriptHead defines what the script's steps use: formenc encodes a value
// as application/x-www-form-urlencoded does (RFC 6749 §2.3.1 asks it of
// client credentials), show prints an answer with its tokens masked, and
// field reads a JSON string property from an answer, and header a header.
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
show() {
  printf '%s\n\n' "$1" | sed -e 's/\("access_token" *: *"\)[^"]*"/\1***"/g' -e 's/\("refresh_token" *: *"\)[^"]*"/\1***"/g'
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
// wrong secret) written as they are. It holds no secret, and its output
// masks the tokens of the answers.
func (s Script) String() string {
	subs := slices.Clone(s.Vars)
	base := strings.TrimRight(s.Base, "/")
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/sh\n# Reproduces %s of the Event Service conformance suite:\n", s.Title)
	b.WriteString("# its requests, in order; the failing one comes last.\n")
	b.WriteString("# Set the CONFORMANCE_* variables as for the run, and BASE_URL for another target.\n")
	fmt.Fprintf(&b, ": \"${BASE_URL:=%s}\"\n", base)
	b.WriteString(scriptHead)
	for _, sh := range s.Shared {
		if sh.Token == "" || !usedUnissued(s.Log, sh.Token) {
			continue
		}
		fmt.Fprintf(&b, "\n# The %s token the run shared among its checks.\n", sh.What)
		fmt.Fprintf(&b, "out=$(curl -sS -i -X POST \"$BASE_URL/oauth/token\" %s --data-urlencode grant_type=password --data-urlencode %s --data-urlencode %s)\n",
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
		path := x.URL
		if p, err := url.Parse(x.URL); err == nil {
			path = p.Path
		}
		fmt.Fprintf(&b, "\necho '== %d. %s %s'\n", n, x.Method, path)
		args := []string{"-sS", "-i", "-X", x.Method, shellWord(x.URL, subs)}
		for _, name := range slices.Sorted(maps.Keys(x.Header)) {
			for _, v := range x.Header[name] {
				switch strings.ToLower(name) {
				case "content-length", "user-agent", "accept-encoding", "host":
				case "authorization":
					args = append(args, s.authorizationArg(v, subs))
				default:
					args = append(args, "-H", shellWord(name+": "+v, subs))
				}
			}
		}
		args = append(args, bodyArgs(x.Header.Get("Content-Type"), x.Body, subs)...)
		fmt.Fprintf(&b, "out=$(curl %s)\nshow \"$out\"\n", strings.Join(args, " "))
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
		return "-H " + shellWord("Authorization: "+v, subs)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred))
	if err != nil {
		return "-H " + shellWord("Authorization: "+v, subs)
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
		w := shellWord(v, subs)
		if s.BasicAsIs {
			return w
		}
		return `"$(formenc ` + w + `)"`
	}
	return fmt.Sprintf(`-H "Authorization: %s $(printf '%%s:%%s' %s %s | base64 | tr -d '\n')"`, scheme, enc(id), enc(secret))
}

// bodyArgs are the curl arguments of a body: a form field by field,
// anything else as it is.
func bodyArgs(contentType string, body []byte, subs []Var) []string {
	if len(body) == 0 {
		return nil
	}
	if mt, _, _ := mime.ParseMediaType(contentType); mt == "application/x-www-form-urlencoded" {
		if form, err := url.ParseQuery(string(body)); err == nil {
			var out []string
			for _, pair := range strings.Split(string(body), "&") {
				k, _, _ := strings.Cut(pair, "=")
				name, _ := url.QueryUnescape(k)
				if vs, ok := form[name]; ok && len(vs) > 0 {
					out = append(out, "--data-urlencode", shellWord(name+"="+vs[0], subs))
					form[name] = vs[1:]
				}
			}
			return out
		}
	}
	return []string{"--data-binary", shellWord(string(body), subs)}
}

// shellWord is s as a double-quoted shell word, each value of subs in it
// written as its expression.
func shellWord(s string, subs []Var) string {
	subs = slices.Clone(subs)
	sort.SliceStable(subs, func(i, j int) bool { return len(subs[i].Value) > len(subs[j].Value) })
	var b strings.Builder
	b.WriteByte('"')
	for len(s) > 0 {
		matched := false
		for _, sb := range subs {
			if sb.Value != "" && strings.HasPrefix(s, sb.Value) {
				b.WriteString(sb.Name)
				s = s[len(sb.Value):]
				matched = true
				break
			}
		}
		if matched {
			continue
		}
		switch c := s[0]; c {
		case '"', '\\', '$', '`':
			b.WriteByte('\\')
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
		s = s[1:]
	}
	b.WriteByte('"')
	return b.String()
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
