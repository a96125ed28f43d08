package admission

import (
	"fmt"
	"os"

	"github.com/rbx-sandbox/rbx/task/source"
)

// Load reads a policy file (YAML or JSON: allow_caps, allow_network,
// deny_root, deny_writable_root, allow_registries); an unknown field or
// a bad value is an error naming the file, line and field.
func Load(path string) (Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Policy{}, fmt.Errorf("policy file: %w", err)
	}
	root, err := source.ParseYAML(path, data)
	if err != nil {
		return Policy{}, err
	}
	var p Policy
	if err := source.Decode(path, root, &p); err != nil {
		return Policy{}, err
	}
	for i, c := range p.Caps {
		p.Caps[i] = NormalCap(c)
	}
	if err := p.Validate(); err != nil {
		return Policy{}, fmt.Errorf("policy file %s: %w", path, err)
	}
	return p, nil
}
