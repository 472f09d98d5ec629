package server

import "eventsvc/server/oauth"

// Tokens returns the server's token store, for the control API to list
// the live tokens and forget them all.
func (s *Server) Tokens() *oauth.Store { return s.store }

// ClearLockouts forgets every failed login and lifts every lockout of the
// token endpoint.
func (s *Server) ClearLockouts() { s.token.Guard.Clear() }
