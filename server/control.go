package server

import "eventsvc/server/oauth"

// Tokens returns the server's token store, for the control API to list
// the live tokens and forget them all.
func (s *Server) Tokens() *oauth.Store { return s.store }

// ClearLockouts forgets every failed login, lifts every lockout of the
// token endpoint and gives every address its whole budget of token
// requests back.
func (s *Server) ClearLockouts() {
	s.token.Guard.Clear()
	s.token.Budget.Clear()
}
