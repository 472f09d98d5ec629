package steps

import (
	"context"
	"encoding/base64"
	"fmt"
	"maps"
	"mime"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/cucumber/godog"
)

// Reproduction is how to see a scenario's failure again: the requests it
// sent up to the failure, with their answers, masked, and a shell script
// that sends them again with curl.
type Reproduction struct {
	// Exchanges are the scenario's requests and answers, masked, in the
	// order it sent them: the failing step's are last.
	Exchanges []string
	// Script is a POSIX shell script that sends the same requests with
	// curl to $BASE_URL (the target, unless set): the run's credentials
	// are read from the CONFORMANCE_* variables, as the run reads them;
	// the tokens are taken from the answers as the scenario took them; the
	// values the suite made up (an invalid token, a wrong secret) are
	// written as they are. It holds no secret, and its output masks the
	// tokens of the answers.
	Script string
}

// reproKey is the context key of a failed step's Reproduction.
type reproKey struct{}

// ReproductionOf returns the reproduction of the scenario's requests that
// a failed step left in ctx, its after-step hooks' context.
func ReproductionOf(ctx context.Context) (Reproduction, bool) {
	r, ok := ctx.Value(reproKey{}).(Reproduction)
	return r, ok
}

// registerReproduction leaves the scenario's reproduction in the context
// of every step that fails.
func (s *scenario) registerReproduction(sc *godog.ScenarioContext) {
	sc.StepContext().After(func(ctx context.Context, _ *godog.Step, status godog.StepResultStatus, _ error) (context.Context, error) {
		if status == godog.StepFailed && s.rec != nil {
			ctx = context.WithValue(ctx, reproKey{}, s.reproduction())
		}
		return ctx, nil
	})
}

// subst is a value of the run that a script writes as a shell expression.
type subst struct{ value, expr string }

// scriptHead defines what the script's steps use: formenc encodes a value
// as application/x-www-form-urlencoded does (RFC 6749 §2.3.1 asks it of
// client credentials), show prints an answer with its tokens masked, and
// field reads a JSON string property from an answer.
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
`

// reproduction writes the scenario's exchanges so far as a Reproduction.
func (s *scenario) reproduction() Reproduction {
	log := s.rec.exchanges()
	var r Reproduction
	for _, x := range log {
		if x.transcript != "" {
			r.Exchanges = append(r.Exchanges, x.transcript)
		}
	}
	c := s.creds
	subs := []subst{
		{c.ClientSecret, "${CONFORMANCE_CLIENT_SECRET}"}, {c.ClientID, "${CONFORMANCE_CLIENT_ID}"},
		{c.Password, "${CONFORMANCE_PASSWORD}"}, {c.Username, "${CONFORMANCE_USERNAME}"},
		{c.OtherPass, "${CONFORMANCE_OTHER_PASSWORD}"}, {c.OtherUsername, "${CONFORMANCE_OTHER_USERNAME}"},
	}
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/sh\n# Reproduces %q (%s) of the Event Service conformance suite:\n", s.name, s.place)
	b.WriteString("# its requests, in order; the failing step's come last.\n")
	b.WriteString("# Set the CONFORMANCE_* variables as for the run, and BASE_URL for another target.\n")
	fmt.Fprintf(&b, ": \"${BASE_URL:=%s}\"\n", strings.TrimRight(s.base, "/"))
	b.WriteString(scriptHead)
	// Tokens the scenario did not get in these requests (the run's shared
	// tokens) are asked for first.
	for _, h := range []struct {
		holder, user, pass string
	}{{"user", "${CONFORMANCE_USERNAME}", "${CONFORMANCE_PASSWORD}"}, {"other", "${CONFORMANCE_OTHER_USERNAME}", "${CONFORMANCE_OTHER_PASSWORD}"}} {
		t := s.tokens.of(h.holder)
		if t.access == "" || !usedUnissued(log, t.access) {
			continue
		}
		v := "ACCESS_" + strings.ToUpper(h.holder)
		fmt.Fprintf(&b, "\n# The %s token the scenario shared with the run's others.\n", map[string]string{"user": "user's", "other": "other user's"}[h.holder])
		fmt.Fprintf(&b, "out=$(curl -sS -i -X POST \"$BASE_URL/oauth/token\" %s --data-urlencode grant_type=password --data-urlencode %s --data-urlencode %s)\n",
			s.basicExpr(schemeBasic, c.ClientID, c.ClientSecret, subs), shellWord("username="+h.user, nil), shellWord("password="+h.pass, nil))
		fmt.Fprintf(&b, "%s=$(field access_token \"$out\")\n", v)
		subs = append(subs, subst{t.access, "${" + v + "}"})
	}
	subs = append(subs, subst{strings.TrimRight(s.base, "/"), "${BASE_URL}"})
	for i, x := range log {
		n := i + 1
		path := x.url
		if p, err := url.Parse(x.url); err == nil {
			path = p.Path
		}
		fmt.Fprintf(&b, "\necho '== %d. %s %s'\n", n, x.method, path)
		args := []string{"-sS", "-i", "-X", x.method, shellWord(x.url, subs)}
		for _, name := range slices.Sorted(maps.Keys(x.header)) {
			for _, v := range x.header[name] {
				switch strings.ToLower(name) {
				case "content-length", "user-agent", "accept-encoding", "host":
				case "authorization":
					args = append(args, s.authorizationArg(v, subs))
				default:
					args = append(args, "-H", shellWord(name+": "+v, subs))
				}
			}
		}
		args = append(args, bodyArgs(x.header.Get("Content-Type"), x.body, subs)...)
		fmt.Fprintf(&b, "out=$(curl %s)\nshow \"$out\"\n", strings.Join(args, " "))
		for _, f := range []string{"access_token", "refresh_token"} {
			if tok := jsonString(x.respBody, f); tok != "" {
				v := fmt.Sprintf("%s_%d", strings.ToUpper(strings.TrimSuffix(f, "_token")), n)
				fmt.Fprintf(&b, "%s=$(field %s \"$out\")\n", v, f)
				subs = append(subs, subst{tok, "${" + v + "}"})
			}
		}
	}
	r.Script = b.String()
	return r
}

// usedUnissued reports whether token is sent by a request of log before
// any answer of log gives it.
func usedUnissued(log []sent, token string) bool {
	for _, x := range log {
		if strings.Contains(string(x.respBody), token) {
			return false
		}
		if strings.Contains(x.url, token) || strings.Contains(strings.Join(x.header.Values("Authorization"), " "), token) || strings.Contains(string(x.body), token) {
			return true
		}
	}
	return false
}

// authorizationArg is the curl argument of an Authorization header: a
// Basic credential rebuilt from the credentials' variables, a Bearer
// token from a variable; the scheme as it was written.
func (s *scenario) authorizationArg(v string, subs []subst) string {
	scheme, cred, _ := strings.Cut(v, " ")
	if !strings.EqualFold(scheme, schemeBasic) {
		return "-H " + shellWord("Authorization: "+v, subs)
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(cred))
	if err != nil {
		return "-H " + shellWord("Authorization: "+v, subs)
	}
	id, secret, _ := strings.Cut(string(raw), ":")
	if !s.creds.BasicAsIs {
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
func (s *scenario) basicExpr(scheme, id, secret string, subs []subst) string {
	enc := func(v string) string {
		w := shellWord(v, subs)
		if s.creds.BasicAsIs {
			return w
		}
		return `"$(formenc ` + w + `)"`
	}
	return fmt.Sprintf(`-H "Authorization: %s $(printf '%%s:%%s' %s %s | base64 | tr -d '\n')"`, scheme, enc(id), enc(secret))
}

// bodyArgs are the curl arguments of a body: a form field by field,
// anything else as it is.
func bodyArgs(contentType string, body []byte, subs []subst) []string {
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
func shellWord(s string, subs []subst) string {
	subs = slices.Clone(subs)
	sort.SliceStable(subs, func(i, j int) bool { return len(subs[i].value) > len(subs[j].value) })
	var b strings.Builder
	b.WriteByte('"')
	for len(s) > 0 {
		matched := false
		for _, sb := range subs {
			if sb.value != "" && strings.HasPrefix(s, sb.value) {
				b.WriteString(sb.expr)
				s = s[len(sb.value):]
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
	v, err := decodeJSON("application/json", string(body))
	if err != nil {
		return ""
	}
	obj, _ := v.(map[string]any)
	str, _ := obj[name].(string)
	return str
}
