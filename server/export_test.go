package server

import "github.com/rbx-sandbox/rbx/sandbox"

// SandboxOf is the live sandbox of an open episode (nil when none), for
// tests that inspect it behind the API's back.
func (s *Server) SandboxOf(id string) sandbox.Sandbox {
	s.mu.Lock()
	ep := s.eps[id]
	s.mu.Unlock()
	if ep == nil {
		return nil
	}
	ep.mu.Lock()
	defer ep.mu.Unlock()
	return ep.sb
}
