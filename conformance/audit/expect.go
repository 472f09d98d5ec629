package audit

import (
	"slices"
	"strings"
)

// Expectation is a kind of thing a step expects of the target, stated as
// data: "a caller with a token may read the list", "a write by another
// user is refused for lack of permission". A step names no rule: when
// what it expected does not come, and the registry has no finding about
// the exchange it failed on, the rules of its expectation are the ones
// the failure proves broken (Expectation.Rules), as gateway-api's
// ExpectedResponse is judged by one CompareRoundTrip. The kinds and their
// rules are kept here, beside the checks of every exchange, so that the
// registry holds every rule the suite judges by.
type Expectation int

// The kinds of expectations the steps state.
const (
	_ Expectation = iota
	// ListOpenToAnyone: the event list is served to a caller without a
	// valid token.
	ListOpenToAnyone
	// ListOpenWithoutCredentials: the event list is served to a caller
	// who sends no credentials at all, as every GET under /api/ is.
	ListOpenWithoutCredentials
	// ListOpenToTokenHolder: the event list is served to a caller with a
	// valid token.
	ListOpenToTokenHolder
	// EventOpenToAnyone: an event is served to a caller without a valid
	// token.
	EventOpenToAnyone
	// EventOpenWithoutCredentials: an event is served to a caller who
	// sends no credentials at all, as every GET under /api/ is.
	EventOpenWithoutCredentials
	// OpenRead: a GET under /api/ is not refused for lack of
	// authentication.
	OpenRead
	// NoSession: no cookie stands in for a token, none is set.
	NoSession
	// DeniedForPermission: a caller denied for lack of permission is
	// answered 403.
	DeniedForPermission
	// ClientCredentialsAuthenticateNothing: client credentials count for
	// nothing on the API.
	ClientCredentialsAuthenticateNothing
	// BearerChallenge: a request refused for want of a valid token is
	// challenged with the Bearer scheme.
	BearerChallenge
	// BasicChallenge: a client whose Basic authentication failed is
	// challenged with the Basic scheme.
	BasicChallenge
	// DocsServed: the documentation page is served as HTML.
	DocsServed
	// TokenAnswerNotCached: an answer of the token endpoint that holds a
	// token must not be cached.
	TokenAnswerNotCached
	// Created: a creation with a valid token creates an event its caller
	// manages.
	Created
	// ReadsBackAsWritten: an event reads back as it was created or
	// updated.
	ReadsBackAsWritten
	// ReadsBackAsUpdated: an event reads back as it was last updated.
	ReadsBackAsUpdated
	// CreationsAtOnce: creations sent at the same moment make events of
	// their own.
	CreationsAtOnce
	// ManagerOffered: the manager of an event is offered update-event,
	// whatever token of theirs they read it with.
	ManagerOffered
	// APIWriteNeedsToken: a request other than a GET under /api/ needs a
	// valid token.
	APIWriteNeedsToken
	// OtherRequestNeedsToken: any other request the resource server
	// handles needs a valid token.
	OtherRequestNeedsToken
	// LinksLead: every link leads where its relation says, to something
	// its caller may read.
	LinksLead
	// ListedEventLinksItself: every event of the list has a self link.
	ListedEventLinksItself
	// AbsoluteHrefs: the reference server's hrefs are absolute.
	AbsoluteHrefs
	// HAL: an answer, and every resource it lists, is HAL.
	HAL
	// Offers: an answer offers its caller what they may do, and nothing
	// they may not.
	Offers
	// RootOffersEvents: the API root links to the event list.
	RootOffersEvents
	// ListOffersAnyone: the list offers an anonymous caller its links.
	ListOffersAnyone
	// ListOffersTokenHolder: the list offers a caller with a token its
	// links, create-new-event among them.
	ListOffersTokenHolder
	// UpdateOffered: the manager of an event, who created it, is offered
	// update-event.
	UpdateOffered
	// AsDocumented: an answer of the reference server is as its OpenAPI
	// document describes it.
	AsDocumented
	// PagingLinks: next and prev are there when, and only when, their
	// pages are.
	PagingLinks
	// PasswordGrant: the password grant with every parameter yields tokens.
	PasswordGrant
	// RefreshGrant: the refresh grant with the refresh token in "token"
	// yields tokens.
	RefreshGrant
	// UserIsNoClient: an end user's credentials do not authenticate a
	// client.
	UserIsNoClient
	// ClientIsNoUser: client credentials are no username and password.
	ClientIsNoUser
	// AccessTokenIsNoRefreshToken: an access token sent as the refresh
	// grant's token yields nothing.
	AccessTokenIsNoRefreshToken
	// ClientAuthentication: the token endpoint authenticates the client
	// with HTTP Basic.
	ClientAuthentication
	// FormBody: the token endpoint's body is form-encoded.
	FormBody
	// ScopeWithinRegistration: the password grant grants scopes of the
	// client's registration only.
	ScopeWithinRegistration
	// OnlyTwoGrants: no grant but password and refresh_token is taken.
	OnlyTwoGrants
	// BothTokens: the password grant returns both tokens at once.
	BothTokens
	// SchemeAnyCase: a scheme name is read in any case.
	SchemeAnyCase
	// TokenFields: the token answer holds what RFC 6749 §5.1 and the
	// specification ask.
	TokenFields
	// GrantedScope: the token answer grants the scopes read and write.
	GrantedScope
	// RefreshedToken: the refresh grant yields a new access token that
	// acts for its user.
	RefreshedToken
	// TokenHonoured: the resource server honours the access tokens the
	// authorization server issues, and nothing else.
	TokenHonoured
)

// expectations maps each kind to the rules a failure of it proves broken.
var expectations = map[Expectation][]string{
	ListOpenToAnyone:                     {"API-2", "SVC-5"},
	ListOpenWithoutCredentials:           {"API-2", "SVC-5", "AUTH-2"},
	ListOpenToTokenHolder:                {"API-4"},
	EventOpenToAnyone:                    {"API-7", "SVC-5"},
	EventOpenWithoutCredentials:          {"API-7", "SVC-5", "AUTH-2"},
	OpenRead:                             {"AUTH-2"},
	NoSession:                            {"SVC-4"},
	DeniedForPermission:                  {"AUTH-6"},
	ClientCredentialsAuthenticateNothing: {"AUTH-1"},
	BearerChallenge:                      {"AUTH-7"},
	BasicChallenge:                       {"TOK-16"},
	DocsServed:                           {"SVC-6"},
	TokenAnswerNotCached:                 {"TOK-15"},
	Created:                              {"API-6", "SVC-7"},
	ReadsBackAsWritten:                   {"API-6", "API-9"},
	ReadsBackAsUpdated:                   {"API-9"},
	CreationsAtOnce:                      {"API-6"},
	ManagerOffered:                       {"API-6", "TOK-8", "SVC-7"},
	APIWriteNeedsToken:                   {"AUTH-3"},
	OtherRequestNeedsToken:               {"AUTH-4"},
	LinksLead:                            linkChecks,
	ListedEventLinksItself:               {"API-10"},
	AbsoluteHrefs:                        {"API-10"},
	HAL:                                  {"SVC-2"},
	Offers:                               {"SVC-3", "API-3", "API-4", "API-8", "API-9", "API-6", "TOK-8", "SVC-7", "TOK-13", "AUTH-1", "SVC-4"},
	RootOffersEvents:                     {"API-1"},
	ListOffersAnyone:                     {"API-3"},
	ListOffersTokenHolder:                {"API-4"},
	UpdateOffered:                        {"API-8", "API-6"},
	AsDocumented:                         {"API-11"},
	PagingLinks:                          {"API-5"},
	PasswordGrant:                        {"TOK-3"},
	RefreshGrant:                         {"TOK-4"},
	UserIsNoClient:                       {"TOK-10", "CLI-1"},
	ClientIsNoUser:                       {"TOK-10"},
	AccessTokenIsNoRefreshToken:          {"TOK-14"},
	ClientAuthentication:                 {"TOK-1"},
	FormBody:                             {"TOK-2"},
	ScopeWithinRegistration:              {"TOK-3", "CLI-4"},
	OnlyTwoGrants:                        {"TOK-9", "CLI-3"},
	BothTokens:                           {"TOK-7"},
	SchemeAnyCase:                        {"SVC-7"},
	TokenFields:                          {"TOK-5"},
	GrantedScope:                         {"TOK-5", "CLI-4"},
	RefreshedToken:                       {"TOK-8"},
	TokenHonoured:                        {"SVC-1", "TOK-8", "SVC-7", "TOK-13"},
}

// Rules returns the rules a failure of e proves broken, in the
// catalogue's order; none for no expectation.
func (e Expectation) Rules() []string {
	out := slices.Clone(expectations[e])
	slices.SortFunc(out, ruleOrder)
	return out
}

// ReadOpen is the expectation of a read of the list (list) or of an event
// by a caller without a valid token: one who sends no credentials at all
// (bare) is also one every GET under /api/ is open to.
func ReadOpen(list, bare bool) Expectation {
	switch {
	case list && bare:
		return ListOpenWithoutCredentials
	case list:
		return ListOpenToAnyone
	case bare:
		return EventOpenWithoutCredentials
	}
	return EventOpenToAnyone
}

// NeedsToken is the expectation of a request other than a GET at path,
// on a target whose API root is at apiRoot: under it, the API's rule
// (APIWriteNeedsToken); elsewhere, such as an address written in
// another case, the rule of every other request (OtherRequestNeedsToken).
func NeedsToken(apiRoot, path string) Expectation {
	if path == apiRoot || strings.HasPrefix(path, apiRoot+"/") {
		return APIWriteNeedsToken
	}
	return OtherRequestNeedsToken
}
