// Package mutate derives variants of the requests a run makes: every part
// of a request varied one step to the side of what the run sent (its
// address, its method, where its credentials are, the token endpoint's
// inputs, its body, its paging), so that the registry's invariants
// (package audit) meet the neighbours of each case the run names. Each
// operator of the catalogue (Catalogue) says where it comes from: the
// lists testers publish for authorization bypass, OWASP's Web Security
// Testing Guide, the RFCs.
//
// A variant that changes a credential (a near-miss of a password, a
// secret, a username or a client id) names the change as a shell
// expression of the credential's variable ("${CONFORMANCE_PASSWORD%?}":
// its last character dropped), never as text that holds the secret or
// most of it: Variant.Vars gives it, for the replay scripts and the
// run's masking.
package mutate

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
)

// Families of operators: the part of a request an operator varies.
const (
	FamilyAddress     = "address"
	FamilyMethod      = "method"
	FamilyCredentials = "credentials"
	FamilyToken       = "token endpoint"
	FamilyBody        = "body"
	FamilyPaging      = "paging"
)

// Families are every family, in the order the documentation lists them.
var Families = []string{FamilyAddress, FamilyMethod, FamilyCredentials, FamilyToken, FamilyBody, FamilyPaging}

// Kinds of requests an operator varies.
const (
	// OnWrite is a write to the API (a creation or an update), with a
	// JSON body.
	OnWrite = "write"
	// OnUpdate is an update of an event, with a JSON body.
	OnUpdate = "update"
	// OnGrant is a password grant of the token endpoint, with the
	// client's credentials in Basic and the account's in the form.
	OnGrant = "grant"
	// OnRefresh is a refresh grant of the token endpoint, with the
	// client's credentials in Basic and the caller's own refresh token
	// in the form.
	OnRefresh = "refresh"
	// OnList is a read of the event list.
	OnList = "list"
)

// Callers an operator's variants are sent as.
const (
	// WithoutToken: a caller without a valid access token; a variant
	// that the target takes as authenticated bypassed it.
	WithoutToken = "without a valid token"
	// WithToken: the caller with a valid token, whose token the variant
	// keeps or moves.
	WithToken = "with a valid token"
	// NotManager: another user than the event's manager.
	NotManager = "another user than the manager"
	// Anyone: any caller.
	Anyone = "anyone"
)

// Request is a request as the operators read and vary it.
type Request struct {
	Method string
	URL    *url.URL
	Header http.Header
	Body   []byte
}

// clone is a deep copy of r.
func (r Request) clone() Request {
	u := *r.URL
	return Request{Method: r.Method, URL: &u, Header: r.Header.Clone(), Body: slices.Clone(r.Body)}
}

// Variant is a request derived from another by one operator.
type Variant struct {
	Request
	// What says what changed, for people: a credential changed is named
	// by its variable (Env.Vars), never shown.
	What string
	// NearMiss is set for a variant a target may count as a failed
	// login, which the run's budget of them bounds so that no account is
	// locked out: one that sends a credential one step from the right one
	// (Vars), or another account's username beside this one's password.
	NearMiss bool
	// Vars are the near-misses the variant sends, each with the shell
	// expression of its variable that writes it: no account or client
	// holds them, and the run masks them as secrets.
	Vars []Var
	// Kind names, of a near-miss of the grant's credentials, which one it
	// is (CredentialNearMissKinds): "the password with a character
	// appended".
	Kind string
	// Derived are the values it sends made from a token of the run (a
	// near-miss of an access token): made up, so that no account holds
	// them, and masked as the token is.
	Derived []Derived
}

// Derived is a value made from another, Of, that a replay script holds
// in a variable it names as it goes (a token it was issued), and the
// shell expression that makes it from that variable: Expr, with
// tokenVar where the variable's name goes (Derived.Written).
type Derived struct {
	Value, Of, Expr string
}

// tokenVar stands for the name of a variable in Derived.Expr.
const tokenVar = "\x00"

// Written is the expression that makes d's value from the variable name.
func (d Derived) Written(name string) string { return strings.ReplaceAll(d.Expr, tokenVar, name) }

// Var is a credential and the shell expression that writes it (a
// variable, "${CONFORMANCE_PASSWORD}", or an expression of one).
type Var struct {
	Value, Name string
}

// Env is what the operators know of the run.
type Env struct {
	// Token is the caller's access token, which the credential operators
	// move out of the Authorization header, and Refresh its refresh
	// token, which a refresh grant sends.
	Token, Refresh string
	// Password, Username, ClientID and ClientSecret are the run's
	// credentials with their variables: the grant's account's, the
	// client's.
	Password, Username, ClientID, ClientSecret Var
	// Credentials are every credential of the run, both accounts' and
	// the client's: no near-miss is one of them.
	Credentials []string
	// Basic is the Authorization header of HTTP Basic credentials as the
	// run sends them to the target (form-encoded first, or not).
	Basic func(id, secret string) string
	// Mark is the run's mark, which a text the body operators write
	// keeps where the text it replaces had it: the run's events are
	// found, and cleaned up, by it.
	Mark string
	// SizeParam is the query parameter that sets the list's page size,
	// when the run knows it.
	SizeParam string
	// OtherUsername is another account's username, which the owned-field
	// operators write as an event's manager.
	OtherUsername string
	// OtherID is the id of another event the run created, and
	// OtherManager the manager of one another account manages, as the
	// target renders them; nil when the run knows none. The owned-field
	// operators write them first: a service that takes an id or a
	// manager from a body may take only values it knows.
	OtherID, OtherManager any
}

// Operator is one way of varying a request.
type Operator struct {
	// Name says what it does, for people and replay files: unique.
	Name string
	// Family is the part of the request it varies.
	Family string
	// Parts are the parts of the request it varies (PartPath…), and Way
	// how it varies them (BySpelling…): its cells of the catalogue's
	// matrix (parts.go).
	Parts []string
	Way   string
	// On is the kind of request it varies (OnWrite…), As the caller its
	// variants are sent as (WithoutToken…).
	On, As string
	// Source is where it comes from: a published list, a guide, an RFC.
	Source string
	// NearMisses is set for an operator whose variants send a near-miss
	// of a credential: failed logins, which a run bounds.
	NearMisses bool
	// Ref is set for an operator whose variants only the reference
	// server's choices judge (a run with -ref, against a server of the
	// developer's own): they send what a deployment's logs would keep.
	Ref bool
	// Vary returns its variants of r, in a fixed order; none when it does
	// not apply to r.
	Vary func(r Request, env Env) []Variant
}

// catalogue is every operator, by family.
var catalogue = slices.Concat(addressOps, methodOps, credentialOps, tokenOps, bodyOps, pagingOps)

// Catalogue returns every operator, by family.
func Catalogue() []Operator { return slices.Clone(catalogue) }

// Find returns the operator of the catalogue named name.
func Find(name string) (Operator, bool) {
	i := slices.IndexFunc(catalogue, func(op Operator) bool { return op.Name == name })
	if i < 0 {
		return Operator{}, false
	}
	return catalogue[i], true
}

// each is what vary makes of every element of xs, in order: a variant of
// a request for each, or a value to vary a field by.
func each[T, U any](xs []T, vary func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, vary(x))
	}
	return out
}

// For returns the operators that vary requests of kind on, sent as as.
func For(on, as string) []Operator {
	var out []Operator
	for _, op := range catalogue {
		if op.On == on && op.As == as {
			out = append(out, op)
		}
	}
	return out
}
