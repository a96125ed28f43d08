package server

import (
	"errors"
	"fmt"

	"github.com/rbx-sandbox/rbx/curriculum"
)

// registerNew registers, in one batch (one commit of the state
// database), every task the curriculum does not know yet, at reference
// version 1 as registerTask would; registerTask then finds them known
// and only rebases them to the current version.
func (s *Server) registerNew() error {
	var fresh []curriculum.TaskInfo
	for _, id := range s.cat.ids() {
		_, err := s.eng.Status(id)
		switch {
		case errors.Is(err, curriculum.ErrUnknownTask):
			fresh = append(fresh, curriculum.FromTrajectory(id, s.refs.at(id, 1).Ref))
		case err != nil:
			return fmt.Errorf("register task %q with the curriculum: %w", id, err)
		}
	}
	if err := s.eng.RegisterAll(fresh); err != nil {
		return fmt.Errorf("register tasks with the curriculum: %w", err)
	}
	return nil
}
