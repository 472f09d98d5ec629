package mutate

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// base requests of each kind, as a run sends them.
func bases() map[string]Request {
	u := func(raw string) *url.URL { v, _ := url.Parse(raw); return v }
	h := func(kv ...string) http.Header {
		out := http.Header{}
		for i := 0; i+1 < len(kv); i += 2 {
			out.Set(kv[i], kv[i+1])
		}
		return out
	}
	write := Request{Method: http.MethodPost, URL: u("http://target.example/api/events"), Header: h("Authorization", "Bearer tok-123", "Content-Type", "application/json"),
		Body: []byte(`{"name":"Launch [run 7]","capacity":40,"startsAt":"2026-12-01T10:00:00Z"}`)}
	update := write
	update.Method, update.URL = http.MethodPut, u("http://target.example/api/events/5")
	return map[string]Request{
		OnWrite:  write,
		OnUpdate: update,
		OnGrant: {Method: http.MethodPost, URL: u("http://target.example/oauth/token"), Header: h("Authorization", "Basic YXBwOnNlY3JldA==", "Content-Type", "application/x-www-form-urlencoded"),
			Body: []byte("grant_type=password&username=user%40example.com&password=Pa55word")},
		OnRefresh: {Method: http.MethodPost, URL: u("http://target.example/oauth/token"), Header: h("Authorization", "Basic YXBwOnNlY3JldA==", "Content-Type", "application/x-www-form-urlencoded"),
			Body: []byte("grant_type=refresh_token&token=ref-456")},
		OnList: {Method: http.MethodGet, URL: u("http://target.example/api/events?size=3"), Header: http.Header{}},
	}
}

var env = Env{
	Token: "tok-123", Refresh: "ref-456",
	Password: Var{"Pa55word", "${CONFORMANCE_PASSWORD}"}, Username: Var{"user@example.com", "${CONFORMANCE_USERNAME}"},
	ClientID: Var{"app", "${CONFORMANCE_CLIENT_ID}"}, ClientSecret: Var{"secret", "${CONFORMANCE_CLIENT_SECRET}"},
	OtherUsername: "other@example.com", Mark: " [run 7]", SizeParam: "size",
	Basic: func(id, secret string) string {
		return "Basic " + base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(id)+":"+url.QueryEscape(secret)))
	},
}

// TestEveryOperatorSaysWhereItComesFromAndVariesItsRequest: every
// operator of the catalogue has a name of its own, a family, a source,
// and gives variants of a request of its kind, each of them another
// request than the one it varies; every family has operators.
func TestEveryOperatorSaysWhereItComesFromAndVariesItsRequest(t *testing.T) {
	names := map[string]bool{}
	families := map[string]bool{}
	for _, op := range Catalogue() {
		if names[op.Name] {
			t.Errorf("two operators are named %q", op.Name)
		}
		names[op.Name] = true
		families[op.Family] = true
		if !slices.Contains(Families, op.Family) || op.Source == "" || op.As == "" {
			t.Errorf("%q: family %q, source %q, as %q", op.Name, op.Family, op.Source, op.As)
		}
		base, ok := bases()[op.On]
		if !ok {
			t.Errorf("%q varies requests of an unknown kind %q", op.Name, op.On)
			continue
		}
		variants := op.Vary(base, env)
		if len(variants) == 0 {
			t.Errorf("%q gives no variant of a %s", op.Name, op.On)
		}
		for _, v := range variants {
			if v.Method == base.Method && v.URL.String() == base.URL.String() && string(v.Body) == string(base.Body) && headersEqual(v.Header, base.Header) {
				t.Errorf("%q: the variant %q is the request itself", op.Name, v.What)
			}
			if v.NearMiss != op.NearMisses {
				t.Errorf("%q: a variant's NearMiss is %t, its operator's NearMisses %t", op.Name, v.NearMiss, op.NearMisses)
			}
			if v.What == "" {
				t.Errorf("%q: a variant says nothing of what changed", op.Name)
			}
		}
		if f, ok := Find(op.Name); !ok || f.Name != op.Name {
			t.Errorf("Find(%q) = %v", op.Name, ok)
		}
	}
	for _, f := range Families {
		if !families[f] {
			t.Errorf("no operator of the family %q", f)
		}
	}
}

func headersEqual(a, b http.Header) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

// TestANearMissIsWrittenAsAChangeOfItsVariable: a near-miss of a
// credential is named by its variable, never shown; its shell
// expression, run by sh with the variable set, writes the value the
// variant sends; and it is not the credential.
func TestANearMissIsWrittenAsAChangeOfItsVariable(t *testing.T) {
	secrets := []Var{env.Password, env.Username, env.ClientID, env.ClientSecret}
	n := 0
	for _, op := range For(OnGrant, Anyone) {
		for _, v := range op.Vary(bases()[OnGrant], env) {
			if !v.NearMiss || op.Name != CredentialNearMissOp {
				continue // another account's username with this one's password: no near-miss to write
			}
			n++
			if len(v.Vars) != 1 {
				t.Fatalf("%q: %d near-misses", v.What, len(v.Vars))
			}
			nm := v.Vars[0]
			for _, s := range secrets {
				if nm.Value == s.Value {
					t.Errorf("%q sends the credential itself", v.What)
				}
				if len(s.Value) >= 4 && (strings.Contains(v.What, s.Value[:len(s.Value)/2+1]) || strings.Contains(nm.Name, s.Value[:len(s.Value)/2+1])) {
					t.Errorf("%q (%s) shows most of a credential", v.What, nm.Name)
				}
			}
			cmd := exec.Command("sh", "-c", `printf %s "`+nm.Name+`"`)
			cmd.Env = []string{"PATH=/usr/bin:/bin", "CONFORMANCE_PASSWORD=" + env.Password.Value, "CONFORMANCE_USERNAME=" + env.Username.Value,
				"CONFORMANCE_CLIENT_ID=" + env.ClientID.Value, "CONFORMANCE_CLIENT_SECRET=" + env.ClientSecret.Value}
			out, err := cmd.Output()
			if err != nil || string(out) != nm.Value {
				t.Errorf("%q: sh writes %s as %q (%v), the variant sends %q", v.What, nm.Name, out, err, nm.Value)
			}
		}
	}
	if n < 10 {
		t.Errorf("%d near-misses of the run's credentials, want at least 10", n)
	}
}

// TestAVariantOfTheAddressSpellsTheSameResource: the address operators
// change the path alone, each segment in turn.
func TestAVariantOfTheAddressSpellsTheSameResource(t *testing.T) {
	var got []string
	for _, op := range For(OnWrite, WithoutToken) {
		for _, v := range op.Vary(bases()[OnWrite], env) {
			got = append(got, v.URL.String())
			if v.URL.Host != "target.example" || v.Method != http.MethodPost {
				t.Errorf("%q changes more than the path: %s %s", v.What, v.Method, v.URL)
			}
		}
	}
	for _, want := range []string{"http://target.example/API/events", "http://target.example/api/Events", "http://target.example//api/events", "http://target.example/api/./events",
		"http://target.example/api/%65vents", "http://target.example/api/events;x=1", "http://target.example/api/x/..;/events", "http://target.example/api%2Fevents", "http://target.example/api/events/"} {
		if !slices.Contains(got, want) {
			t.Errorf("no variant %s among %v", want, got)
		}
	}
}

// TestTheBodyOperatorsKeepTheRunsMark: a text written in place of one
// that held the run's mark holds it too, so that the run finds and
// cleans up what it made.
func TestTheBodyOperatorsKeepTheRunsMark(t *testing.T) {
	op, _ := Find("an odd text")
	for _, v := range op.Vary(bases()[OnWrite], env) {
		if strings.Contains(v.What, `"name"`) && !strings.Contains(string(v.Body), "[run 7]") {
			t.Errorf("%q loses the run's mark: %s", v.What, v.Body)
		}
	}
}

// TestTheDocumentationListsTheCatalogue: docs/mutations.md lists every
// operator with its family and its source.
func TestTheDocumentationListsTheCatalogue(t *testing.T) {
	b, err := os.ReadFile("../../docs/mutations.md")
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, op := range Catalogue() {
		row := fmt.Sprintf("| %s | %s | %s | %s |", op.Name, op.On, op.As, strings.ReplaceAll(op.Source, "|", "\\|"))
		if !strings.Contains(page, row) {
			t.Errorf("docs/mutations.md has no row %s", row)
		}
	}
	for _, f := range Families {
		if !strings.Contains(page, "### "+f+"\n") {
			t.Errorf("docs/mutations.md has no section of the family %q", f)
		}
	}
}

// TestTheCatalogueCoversEveryPartOfEveryRequest: every part of each kind
// of request (Anatomy) has an operator that varies it, and every operator
// varies parts of the kind of request it is on, in one of the ways, and
// says where it comes from: a cell of the matrix without a source, or a
// part without an operator, fails.
func TestTheCatalogueCoversEveryPartOfEveryRequest(t *testing.T) {
	for _, kind := range Kinds {
		for _, part := range Anatomy[kind] {
			if !slices.ContainsFunc(Catalogue(), func(op Operator) bool { return op.On == kind && slices.Contains(op.Parts, part) }) {
				t.Errorf("no operator varies the %s of a %s", part, kind)
			}
		}
	}
	for kind, parts := range Unvaried {
		for part, why := range parts {
			if slices.Contains(Anatomy[kind], part) || why == "" {
				t.Errorf("the %s of a %s is both varied and left alone (%q)", part, kind, why)
			}
		}
	}
	for _, op := range Catalogue() {
		switch {
		case op.Source == "":
			t.Errorf("%s: no source", op.Name)
		case len(op.Parts) == 0 || !slices.Contains(Ways, op.Way):
			t.Errorf("%s: parts %v, way %q: no cell of the matrix", op.Name, op.Parts, op.Way)
		}
		for _, part := range op.Parts {
			if !slices.Contains(Anatomy[op.On], part) {
				t.Errorf("%s varies the %s of a %s, which Anatomy does not list", op.Name, part, op.On)
			}
		}
	}
}

// TestTheDocumentationShowsTheMatrix: docs/mutations.md holds the
// catalogue's matrix as the code has it.
func TestTheDocumentationShowsTheMatrix(t *testing.T) {
	b, err := os.ReadFile("../../docs/mutations.md")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), Matrix()) {
		t.Errorf("docs/mutations.md does not hold the matrix as the catalogue has it:\n%s", Matrix())
	}
}

// TestANearMissOfTheAccessTokenIsWrittenFromItsVariable: each near-miss
// of the access token is another token, sent under the same scheme, and
// its expression, run by sh with the token in a variable, writes it.
func TestANearMissOfTheAccessTokenIsWrittenFromItsVariable(t *testing.T) {
	op, _ := Find("a near-miss of the access token")
	base := bases()[OnWrite]
	token := "aB3-xY_9zQ"
	base.Header.Set("Authorization", "Bearer "+token)
	vs := op.Vary(base, Env{Token: token})
	if len(vs) != 3 {
		t.Fatalf("%d near-misses of the token, want 3", len(vs))
	}
	for _, v := range vs {
		d := v.Derived[0]
		if v.Header.Get("Authorization") != "Bearer "+d.Value || d.Value == token || d.Of != token || v.NearMiss {
			t.Errorf("%s: sends %q, derived %+v (a failed login: %v)", v.What, v.Header.Get("Authorization"), d, v.NearMiss)
		}
		sh := exec.Command("sh", "-c", `printf %s "`+d.Written("TOKEN")+`"`)
		sh.Env = []string{"TOKEN=" + token, "PATH=/usr/bin:/bin"}
		out, err := sh.Output()
		if err != nil || string(out) != d.Value {
			t.Errorf("%s: %s writes %q (%v), want %q", v.What, d.Written("TOKEN"), out, err, d.Value)
		}
	}
}

// TestOwnedFieldsTakeValuesTheRunSaw: the owned-field operator writes the
// id of another event of the run and the manager of one another account
// manages, as the target rendered them, when the run knows them.
func TestOwnedFieldsTakeValuesTheRunSaw(t *testing.T) {
	op, _ := Find("a field the service owns")
	bodies := map[string]string{}
	for _, v := range op.Vary(bases()[OnWrite], Env{OtherUsername: "admin@email.com", OtherID: "ev-0007", OtherManager: map[string]any{"id": 2.0}}) {
		bodies[v.What] = string(v.Body)
	}
	for _, want := range []string{`"id":"ev-0007"`, `"manager":{"id":2}`, `"managerId":2`} {
		if !strings.Contains(fmt.Sprint(bodies), want) {
			t.Errorf("no variant writes %s: %v", want, bodies)
		}
	}
}

// TestCombineSendsEveryValueOfABodyInAsFewRequestsAsAFieldHasValues:
// the variants of a body operator merge, each into the first combination
// whose fields it leaves alone, exactly as written (a number at a bound
// too); every variant is in one combination; one that changes more than
// the body's fields is in none.
func TestCombineSendsEveryValueOfABodyInAsFewRequestsAsAFieldHasValues(t *testing.T) {
	for _, name := range []string{"an odd text", "a number at a bound", "a text at a common column length"} {
		op, _ := Find(name)
		base := bases()[OnUpdate]
		base.Body = []byte(`{"name":"Launch [run 7]","description":"A launch","location":"Hall","basePrice":10,"maxPrice":20}`)
		vs := op.Vary(base, env)
		cs := Combine(base, vs)
		if len(cs) == 0 || len(cs) >= len(vs) {
			t.Errorf("%s: %d variants in %d combinations", name, len(vs), len(cs))
			continue
		}
		var members []int
		for _, c := range cs {
			members = append(members, c.Members...)
			got, _ := exactBody(c.Request)
			baseFields, _ := exactBody(base)
			for _, m := range c.Members {
				d, _ := deltaOf(base, baseFields, vs[m])
				for k, v := range d.fields {
					if fmt.Sprint(got[k]) != fmt.Sprint(v) {
						t.Errorf("%s: a combination sends %s otherwise than its member %d", name, k, m)
					}
				}
			}
		}
		if slices.Sort(members); len(members) != len(vs) || members[0] != 0 || members[len(members)-1] != len(vs)-1 {
			t.Errorf("%s: the combinations hold %v of %d variants", name, members, len(vs))
		}
	}
	// The token in every cookie, header or query parameter at once, and
	// without its Authorization header: one request each.
	for _, name := range []string{"the token in a cookie", "the token in another header", "the token in a query parameter"} {
		op, _ := Find(name)
		vs := op.Vary(bases()[OnWrite], env)
		cs := Combine(bases()[OnWrite], vs)
		if len(cs) != 1 || len(cs[0].Members) != len(vs) || cs[0].Header.Get("Authorization") != "" {
			t.Errorf("%s: %d variants in %d combinations", name, len(vs), len(cs))
			continue
		}
		for _, v := range vs {
			for k, vals := range v.Header {
				if k != "Cookie" && !slices.Equal(cs[0].Header[k], vals) {
					t.Errorf("%s: the combination sends %s %v, a member %v", name, k, cs[0].Header[k], vals)
				}
			}
			for k, vals := range v.URL.Query() {
				if !slices.Equal(cs[0].URL.Query()[k], vals) {
					t.Errorf("%s: the combination sends the parameter %s %v, a member %v", name, k, cs[0].URL.Query()[k], vals)
				}
			}
		}
		if name == "the token in a cookie" && len((&http.Request{Header: cs[0].Header}).Cookies()) != len(vs) {
			t.Errorf("the combination sends %d cookies, its members %d", len((&http.Request{Header: cs[0].Header}).Cookies()), len(vs))
		}
	}
	form, _ := Find("the token in a form field")
	if cs := Combine(bases()[OnWrite], form.Vary(bases()[OnWrite], env)); len(cs) != 0 {
		t.Errorf("variants that change the body's media type combine: %d", len(cs))
	}
}

// TestNoNearMissIsOneACorrectVerifierTakes: no character is appended to a
// password bcrypt reads 72 bytes of, nor the last one dropped of a longer
// one or dropped when it is a space (a verifier may normalise spaces);
// a hex token's case is not swapped (it names the same value), and a
// token gets two characters appended, never one (a lenient base64url
// decoder may ignore one).
func TestNoNearMissIsOneACorrectVerifierTakes(t *testing.T) {
	long := Var{Value: strings.Repeat("p", 72), Name: "${CONFORMANCE_PASSWORD}"}
	for _, tc := range []struct {
		c   Var
		way string
	}{{long, appendOne}, {Var{Value: strings.Repeat("p", 73), Name: long.Name}, dropLast}, {Var{Value: "secret ", Name: long.Name}, dropLast}} {
		if nm, ok := NearMiss(tc.c, tc.way, nil); ok {
			t.Errorf("a near-miss of %d bytes with %s: %q", len(tc.c.Value), tc.way, nm.Name)
		}
	}
	if _, ok := NearMiss(Var{Value: strings.Repeat("p", 71), Name: long.Name}, appendOne, nil); !ok {
		t.Error("no character appended to a password of 71 bytes")
	}
	op, _ := Find("a near-miss of the access token")
	base := bases()[OnWrite]
	hex := "3f2a9c1e-77b0-4d2e-9a51-0c6f2b8d4e10"
	base.Header.Set("Authorization", "Bearer "+hex)
	for _, v := range op.Vary(base, Env{Token: hex}) {
		d := v.Derived[0].Value
		if strings.EqualFold(d, hex) || strings.HasPrefix(d, hex) && len(d) != len(hex)+2 {
			t.Errorf("a near-miss of a hex token: %q", d)
		}
	}
}
