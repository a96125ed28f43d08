package images

import (
	_ "embed"
	"fmt"
	"os"
	"path"
	"strings"

	"github.com/goccy/go-yaml"
)

//go:embed aliases.yaml
var aliasesYAML []byte

// Alias maps base image references matching Match to the local Image.
type Alias struct {
	Match string `yaml:"match"`
	Image string `yaml:"image"`
}

// Aliases is an ordered alias table; the first match wins.
type Aliases []Alias

// DefaultAliases returns the built-in table (images/aliases.yaml).
func DefaultAliases() Aliases {
	a, err := ParseAliases(aliasesYAML)
	if err != nil {
		panic(fmt.Sprintf("built-in aliases: %v", err)) // a test guards this
	}
	return a
}

// ParseAliases decodes an alias table ("aliases:" list of {match, image}).
func ParseAliases(data []byte) (Aliases, error) {
	var f struct {
		Aliases Aliases `yaml:"aliases"`
	}
	if err := yaml.UnmarshalWithOptions(data, &f, yaml.Strict()); err != nil {
		return nil, fmt.Errorf("parse aliases: %w", err)
	}
	for i, a := range f.Aliases {
		if a.Match == "" || a.Image == "" {
			return nil, fmt.Errorf("parse aliases: aliases[%d]: match and image are required", i)
		}
		if _, err := path.Match(a.Match, ""); err != nil {
			return nil, fmt.Errorf("parse aliases: aliases[%d].match %q: %w", i, a.Match, err)
		}
	}
	return f.Aliases, nil
}

// Resolve returns the local image for the base reference ref.
func (as Aliases) Resolve(ref string) (string, bool) {
	r := canonicalRef(ref)
	for _, a := range as {
		if globMatch(a.Match, r) {
			return a.Image, true
		}
	}
	return "", false
}

// canonicalRef drops a digest and Docker Hub's implicit prefixes.
func canonicalRef(ref string) string {
	r := strings.TrimSpace(ref)
	if i := strings.Index(r, "@"); i >= 0 {
		r = r[:i]
	}
	r = strings.TrimPrefix(r, "docker.io/")
	r = strings.TrimPrefix(r, "index.docker.io/")
	return strings.TrimPrefix(r, "library/")
}

// globMatch matches with "*" spanning any characters, "/" included.
func globMatch(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}

// AliasesEnv names a user alias file consulted before the built-in table
// when no --aliases flag is given.
const AliasesEnv = "RBX_ALIASES"

// LoadAliases reads a user alias file (same shape as images/aliases.yaml)
// and returns its entries followed by the built-in table, so the user's
// entries win.
func LoadAliases(path string) (Aliases, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read aliases %q: %w", path, err)
	}
	user, err := ParseAliases(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return append(user, DefaultAliases()...), nil
}
