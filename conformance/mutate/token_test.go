package mutate

import (
	"net/url"
	"slices"
	"testing"
)

// TestAGrantsFormNamesAnotherAccountBesideItsOwn: the password grant's
// username is sent twice, the account's own and the other account's, in
// either order, with the account's password (a failed login, should the
// target read the other copy); the refresh grant gets the other
// account's username beside its refresh token, a parameter no refresh
// takes, and is no failed login.
func TestAGrantsFormNamesAnotherAccountBesideItsOwn(t *testing.T) {
	op, ok := Find("a username repeated, another account's in one copy")
	if !ok || op.Way != ByMultiplicity || op.On != OnGrant || !op.NearMisses {
		t.Fatalf("no operator repeats the grant's username: %+v", op)
	}
	var got [][]string
	for _, v := range op.Vary(bases()[OnGrant], env) {
		form, _ := url.ParseQuery(string(v.Body))
		if form.Get("password") != "Pa55word" || !v.NearMiss {
			t.Errorf("%s: password %q, a failed login %v", v.What, form.Get("password"), v.NearMiss)
		}
		got = append(got, form["username"])
	}
	want := [][]string{{"user@example.com", "other@example.com"}, {"other@example.com", "user@example.com"}}
	if !slices.EqualFunc(got, want, slices.Equal[[]string]) {
		t.Errorf("usernames sent %v, want %v", got, want)
	}

	op, ok = Find("a username beside the refresh token")
	if !ok || op.Way != ByMultiplicity || op.On != OnRefresh || op.NearMisses {
		t.Fatalf("no operator adds a username to the refresh grant: %+v", op)
	}
	vs := op.Vary(bases()[OnRefresh], env)
	if len(vs) != 1 {
		t.Fatalf("%d variants, want 1", len(vs))
	}
	form, _ := url.ParseQuery(string(vs[0].Body))
	if form.Get("token") != "ref-456" || form.Get("username") != "other@example.com" || vs[0].NearMiss {
		t.Errorf("%s: %v", vs[0].What, form)
	}
}

// TestTheClientsCredentialsGoInTheForm: the client's id and secret move
// from HTTP Basic to the form (RFC 6749 §2.3.1), judged with -ref alone.
func TestTheClientsCredentialsGoInTheForm(t *testing.T) {
	op, ok := Find("the client's credentials in the form")
	if !ok || op.Way != ByPlace || !op.Ref || op.On != OnGrant {
		t.Fatalf("no operator moves the client's credentials to the form: %+v", op)
	}
	vs := op.Vary(bases()[OnGrant], env)
	if len(vs) != 1 {
		t.Fatalf("%d variants, want 1", len(vs))
	}
	form, _ := url.ParseQuery(string(vs[0].Body))
	if vs[0].Header.Get("Authorization") != "" || form.Get("client_id") != "app" || form.Get("client_secret") != "secret" || form.Get("password") != "Pa55word" {
		t.Errorf("%s: %v, Authorization %q", vs[0].What, form, vs[0].Header.Get("Authorization"))
	}
}

// TestARequestsPartsAreWhatATargetMayRead: each kind of request a run
// sends is told apart, and dissected into the parts of the matrix.
func TestARequestsPartsAreWhatATargetMayRead(t *testing.T) {
	for kind, want := range map[string][]string{
		OnWrite:   {PartAccessToken, PartBodyField, PartHeader, PartMethod, PartPath},
		OnUpdate:  {PartAccessToken, PartBodyField, PartHeader, PartID, PartMethod, PartPath},
		OnGrant:   {PartClientID, PartClientSecret, PartFormParam, PartHeader, PartMethod, PartPassword, PartPath, PartUsername},
		OnRefresh: {PartClientID, PartClientSecret, PartFormParam, PartHeader, PartMethod, PartPath, PartRefreshToken},
		OnList:    {PartMethod, PartPath, PartQuery},
	} {
		r := bases()[kind]
		if got := KindOf(r); got != kind {
			t.Errorf("KindOf(%s %s) = %q, want %q", r.Method, r.URL, got, kind)
		}
		if got := PartsOf(kind, r); !slices.Equal(got, slices.Sorted(slices.Values(want))) {
			t.Errorf("the parts of a %s: %v, want %v", kind, got, want)
		}
	}
}
