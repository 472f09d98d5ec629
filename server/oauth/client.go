package oauth

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"eventsvc/server/secret"
)

// Grant types (RFC 6749).
const (
	// GrantPassword is the resource owner password credentials grant
	// (RFC 6749 §4.3).
	GrantPassword = "password"
	// GrantRefreshToken is the refresh token grant (RFC 6749 §6).
	GrantRefreshToken = "refresh_token"
)

// Scopes.
const (
	// ScopeRead allows reading.
	ScopeRead = "read"
	// ScopeWrite allows creating and updating.
	ScopeWrite = "write"
)

// Sentinel errors of client registrations, for errors.Is.
var (
	// ErrUnknownGrantType reports a grant type other than password and
	// refresh_token in a client registration.
	ErrUnknownGrantType = errors.New("unknown grant type")
	// ErrUnknownScope reports a scope other than read and write in a client
	// registration.
	ErrUnknownScope = errors.New("unknown scope")
	// ErrDuplicateClient reports two registrations with the same client id.
	ErrDuplicateClient = errors.New("duplicate client id")
	// ErrInvalidClientEntry reports a registration that is unusable for
	// another reason: a bad client id, or no grant types, scopes or
	// resource ids.
	ErrInvalidClientEntry = errors.New("invalid client registration")
	// ErrClientNotAuthenticated reports an unknown client id or a wrong
	// client secret; the caller cannot tell which.
	ErrClientNotAuthenticated = errors.New("client not authenticated")
)

// Client is a client registration: an application allowed to call the token
// endpoint. Its printed forms (String and every fmt verb) never show
// SecretHash.
type Client struct {
	ID string
	// SecretHash is the stored form of the client secret, "{bcrypt}...".
	SecretHash string `json:"-"`
	// GrantTypes is a subset of {password, refresh_token}.
	GrantTypes []string
	// Scopes is a subset of {read, write}.
	Scopes []string
	// ResourceIDs names the resource servers the client's tokens are
	// valid for, for example ["event"].
	ResourceIDs []string
}

// AllowsGrant reports whether the client may use grantType.
func (c Client) AllowsGrant(grantType string) bool {
	return slices.Contains(c.GrantTypes, grantType)
}

// HasScope reports whether the client may be granted scope.
func (c Client) HasScope(scope string) bool {
	return slices.Contains(c.Scopes, scope)
}

// HasResource reports whether the client's tokens are valid for the
// resource server id.
func (c Client) HasResource(id string) bool {
	return slices.Contains(c.ResourceIDs, id)
}

// String describes the client by id, grant types, scopes and resource ids,
// never its secret.
func (c Client) String() string {
	return fmt.Sprintf("client %s grants [%s] scopes [%s] resources [%s]", c.ID,
		strings.Join(c.GrantTypes, " "), strings.Join(c.Scopes, " "), strings.Join(c.ResourceIDs, " "))
}

// Format prints the client for any fmt verb without its secret: %#v gives a
// Go-like form with the hash redacted, every other verb applies to String.
func (c Client) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		fmt.Fprintf(f, "oauth.Client{ID:%q, SecretHash:\"[REDACTED]\", GrantTypes:%#v, Scopes:%#v, ResourceIDs:%#v}",
			c.ID, c.GrantTypes, c.Scopes, c.ResourceIDs)
		return
	}
	fmt.Fprintf(f, fmt.FormatString(f, verb), c.String())
}

// clone returns a copy of c that shares no memory with it.
func (c Client) clone() Client {
	c.GrantTypes = slices.Clone(c.GrantTypes)
	c.Scopes = slices.Clone(c.Scopes)
	c.ResourceIDs = slices.Clone(c.ResourceIDs)
	return c
}

// MaxClientIDLen is the longest client id, in bytes, a registration may
// have; the token endpoint refuses a longer one before any lookup.
const MaxClientIDLen = 256

// clientDummySecret is hashed once per registry, at the highest cost of its
// clients, so that an unknown client id costs the same bcrypt comparison as
// the dearest known one.
const clientDummySecret = "no client has this secret"

// Clients is the registry of client registrations. Its set is replaced
// whole (Replace), never changed in place: each lookup reads one set,
// before or after a replacement, with one atomic load and no lock. It is
// safe for concurrent use.
type Clients struct {
	set secret.Registry[Client, clientKind]
}

// clientKind is how Clients checks, names and indexes registrations: by
// client id.
type clientKind struct{}

func (clientKind) Noun() string                          { return "client" }
func (clientKind) DummySecret() string                   { return clientDummySecret }
func (clientKind) Check(c Client, _ int) (Client, error) { return checkClient(c) }
func (clientKind) Label(c Client) string                 { return c.ID }
func (clientKind) Keys(c Client) []any                   { return []any{c.ID} }
func (clientKind) Repeated(Client, any) error            { return ErrDuplicateClient }
func (clientKind) Stored(c Client) string                { return c.SecretHash }
func (clientKind) Clone(c Client) Client                 { return c.clone() }

// NewClients checks the registrations and returns a registry holding copies
// of them. It refuses an empty client id, one longer than MaxClientIDLen
// bytes, or one with ':' or control characters (ErrInvalidClientEntry), a repeated id (ErrDuplicateClient), a
// grant type other than password and refresh_token (ErrUnknownGrantType), a
// scope other than read and write (ErrUnknownScope), no grant types, no
// scopes, no resource id or an empty one (ErrInvalidClientEntry), and a
// secret hash secret.Validate refuses. Each error names the entry by 1-based
// position and client id.
func NewClients(clients []Client) (*Clients, error) {
	r := &Clients{}
	if err := r.Replace(clients); err != nil {
		return nil, err
	}
	return r, nil
}

// Replace checks clients as NewClients does and, when they pass, makes
// them the registry's clients in one step: a lookup sees either the old
// registrations or the new ones, never a mix. When they do not pass, the
// registry keeps its clients.
func (c *Clients) Replace(clients []Client) error {
	return c.set.Replace(clients)
}

// CheckClient checks one registration as NewClients checks each of its
// registrations, for a caller that adds or changes one, and returns it
// with repeated grant types, scopes and resource ids dropped.
func CheckClient(c Client) (Client, error) {
	return checkClient(c.clone())
}

// checkClient validates one registration and returns it with repeated
// grant types, scopes and resource ids dropped.
func checkClient(c Client) (Client, error) {
	if err := checkClientID(c.ID); err != nil {
		return c, err
	}
	var err error
	if c.GrantTypes, err = clientValues(c.GrantTypes, "grant types", ErrUnknownGrantType, GrantPassword, GrantRefreshToken); err != nil {
		return c, err
	}
	if c.Scopes, err = clientValues(c.Scopes, "scopes", ErrUnknownScope, ScopeRead, ScopeWrite); err != nil {
		return c, err
	}
	if c.ResourceIDs, err = clientValues(c.ResourceIDs, "resource ids", nil); err != nil {
		return c, err
	}
	if err := secret.Validate(c.SecretHash); err != nil {
		return c, fmt.Errorf("secret: %w", err)
	}
	return c, nil
}

// checkClientID refuses a client id that cannot travel in HTTP Basic
// credentials unambiguously.
func checkClientID(id string) error {
	switch {
	case id == "":
		return fmt.Errorf("%w: empty client id", ErrInvalidClientEntry)
	case len(id) > MaxClientIDLen:
		return fmt.Errorf("%w: client id longer than %d bytes", ErrInvalidClientEntry, MaxClientIDLen)
	case !utf8.ValidString(id):
		return fmt.Errorf("%w: client id is not valid UTF-8", ErrInvalidClientEntry)
	case strings.Contains(id, ":"):
		return fmt.Errorf("%w: client id contains \":\"", ErrInvalidClientEntry)
	case strings.IndexFunc(id, unicode.IsControl) >= 0:
		return fmt.Errorf("%w: client id contains a control character", ErrInvalidClientEntry)
	}
	return nil
}

// clientValues checks a list of a registration (what names it): it must be
// non-empty, and each value must be one of known, or, when known is empty,
// a non-empty word. It returns the list without repeats.
func clientValues(values []string, what string, unknown error, known ...string) ([]string, error) {
	if len(values) == 0 {
		return nil, fmt.Errorf("%w: no %s", ErrInvalidClientEntry, what)
	}
	out := values[:0]
	for _, v := range values {
		switch {
		case len(known) > 0 && !slices.Contains(known, v):
			return nil, fmt.Errorf("%w %q, want one of %s", unknown, v, strings.Join(known, ", "))
		case v == "" || strings.IndexFunc(v, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
			return nil, fmt.Errorf("%w: %s: %q is empty or holds whitespace", ErrInvalidClientEntry, what, v)
		}
		if !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	return out, nil
}

// Authenticate returns a copy of the client with the given id whose secret
// is secretText. An unknown id and a wrong secret both give
// ErrClientNotAuthenticated, after the same bcrypt work.
func (c *Clients) Authenticate(id, secretText string) (Client, error) {
	client, ok := c.set.Authenticate(id, secretText)
	if !ok {
		return Client{}, ErrClientNotAuthenticated
	}
	return client, nil
}

// Lookup returns a copy of the client with the given id.
func (c *Clients) Lookup(id string) (Client, bool) {
	return c.set.Lookup(id)
}

// Len returns the number of client registrations.
func (c *Clients) Len() int {
	return c.set.Len()
}

// All returns copies of the registrations, in the order they were given.
func (c *Clients) All() []Client {
	return c.set.All()
}
