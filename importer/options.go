package importer

import (
	"errors"
	"fmt"
)

type config struct {
	tools ToolMap
	task  string
	id    string
}

// Option configures an import.
type Option func(*config) error

// WithTools sets the tool map; the default is DefaultTools(). Use
// DefaultTools().Merge(extra) to extend rather than replace it.
func WithTools(m ToolMap) Option {
	return func(c *config) error {
		if len(m) == 0 {
			return errors.New("empty tool map")
		}
		c.tools = m
		return nil
	}
}

// WithTask sets the trajectories' task reference (a task id or a path
// relative to the trajectory file); default "task.yaml".
func WithTask(ref string) Option {
	return func(c *config) error {
		if ref == "" {
			return errors.New("empty task reference")
		}
		c.task = ref
		return nil
	}
}

// WithID sets the id of the imported trajectory; default the input's own
// id (session id, file name).
func WithID(id string) Option {
	return func(c *config) error { c.id = id; return nil }
}

func newConfig(opts []Option) (config, error) {
	c := config{task: "task.yaml"}
	for _, o := range opts {
		if err := o(&c); err != nil {
			return c, fmt.Errorf("import: %w", err)
		}
	}
	if c.tools == nil {
		c.tools = DefaultTools()
	}
	return c, nil
}
