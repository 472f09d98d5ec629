package eventsvctest

import (
	"net/http"
	"net/url"
	"testing"

	"eventsvc/server/control"
)

// Client is a client registration as the control API lists it, with a
// configuration file's names, never its secret.
type Client = control.ClientView

// NewClient is a client registration AddClient adds. A nil list is the
// demo client's: grant types password and refresh_token, scopes read and
// write, resource id event.
type NewClient struct {
	// ClientID names it; no other client may have it, and it holds no
	// ":".
	ClientID string `json:"clientId"`
	// ClientSecret is plain: the server hashes it and never shows it.
	ClientSecret string `json:"clientSecret"`
	// AuthorizedGrantTypes are "password", "refresh_token" or both.
	AuthorizedGrantTypes []string `json:"authorizedGrantTypes"`
	// Scopes are "read", "write" or both.
	Scopes []string `json:"scopes"`
	// ResourceIDs are the resources its tokens are for, such as "event".
	ResourceIDs []string `json:"resourceIds"`
}

// ClientChange is what ChangeClient changes of a client registration;
// an empty field stays as it is.
type ClientChange struct {
	// ClientSecret is the new secret, plain.
	ClientSecret         string   `json:"clientSecret,omitempty"`
	AuthorizedGrantTypes []string `json:"authorizedGrantTypes,omitempty"`
	Scopes               []string `json:"scopes,omitempty"`
	ResourceIDs          []string `json:"resourceIds,omitempty"`
}

// Clients returns the client registrations, in order (GET /clients).
func (s *Server) Clients(tb testing.TB) []Client {
	tb.Helper()
	return member[[]Client](tb, s, http.MethodGet, "/clients", nil, "clients")
}

// AddClient registers a client (POST /clients), which gets tokens at
// once, and returns it as listed. It fails tb when the control API
// refuses it: an id a client has, an empty secret or one longer than 72
// bytes, an unknown grant type or scope.
func (s *Server) AddClient(tb testing.TB, c NewClient) Client {
	tb.Helper()
	if c.AuthorizedGrantTypes == nil {
		c.AuthorizedGrantTypes = []string{"password", "refresh_token"}
	}
	if c.Scopes == nil {
		c.Scopes = []string{"read", "write"}
	}
	if c.ResourceIDs == nil {
		c.ResourceIDs = []string{"event"}
	}
	return answer[Client](tb, s, http.MethodPost, "/clients", c)
}

// ChangeClient changes the secret, grant types, scopes or resource ids of
// the client id (PATCH /clients/{id}) and returns it as changed. The old
// secret is refused from the next request on; the tokens issued to the
// client stay valid with the scopes they were given. It fails tb when no
// client has the id, or ch changes nothing or is refused.
func (s *Server) ChangeClient(tb testing.TB, id string, ch ClientChange) Client {
	tb.Helper()
	return answer[Client](tb, s, http.MethodPatch, "/clients/"+url.PathEscape(id), ch)
}

// RemoveClient removes the client id (DELETE /clients/{id}) and revokes
// the live tokens issued to it: a client that sends one then gets 401 on
// a write. It returns the client removed and how many tokens were
// revoked, and fails tb when no client has the id or it is the last
// client.
func (s *Server) RemoveClient(tb testing.TB, id string) (removed Client, revokedTokens int) {
	tb.Helper()
	return remove[Client](tb, s, "/clients/"+url.PathEscape(id))
}
