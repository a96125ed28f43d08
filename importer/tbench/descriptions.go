package tbench

import (
	"fmt"
	"path/filepath"
	"strings"
)

// description is one entry of an old-format task.yaml's `descriptions:`
// list (terminal-bench before `instruction:`).
type description struct {
	Key         string `yaml:"key"`
	Description string `yaml:"description"`
}

// fromDescriptions picks the instruction of an old-format task.yaml: the
// entry with key "base", else the first one; a warning names the choice
// when there was one to make, or when nothing usable was found.
func (s *Source) fromDescriptions(ds []description) string {
	file := filepath.Join(s.Dir, "task.yaml")
	if len(ds) == 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: no instruction: neither `instruction:` nor `descriptions:`", file))
		return ""
	}
	pick := 0
	var keys []string
	for i, d := range ds {
		keys = append(keys, d.Key)
		if d.Key == "base" && ds[pick].Key != "base" {
			pick = i
		}
	}
	if len(ds) > 1 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: old format with %d descriptions (keys %s); using %q",
			file, len(ds), strings.Join(keys, ", "), ds[pick].Key))
	}
	if strings.TrimSpace(ds[pick].Description) == "" {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%s: description %q is empty", file, ds[pick].Key))
	}
	return ds[pick].Description
}
