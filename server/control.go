package server

import "eventsvc/server/oauth"

// Tokens returns the server's token store in memory, for the control API
// to list the live tokens and forget them all; nil when the tokens are kept
// elsewhere (Options.Tokens), where `eventsvc serve` offers no control API.
func (s *Server) Tokens() *oauth.Store {
	st, _ := s.store.(*oauth.Store)
	return st
}

// ClearLockouts forgets every failed login, lifts every lockout of the
// token endpoint and gives every address its whole budget of token
// requests back.
func (s *Server) ClearLockouts() {
	if g, ok := s.token.Guard.(interface{ Clear() }); ok {
		g.Clear()
	}
	s.token.Budget.Clear()
}
