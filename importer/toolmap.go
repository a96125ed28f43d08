package importer

import (
	_ "embed"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/rbx-sandbox/rbx/trajectory"
)

//go:embed tools.yaml
var defaultToolsYAML []byte

// OpenFile is the argument source naming the file the agent opened last
// (SWE-agent's windowed editor edits the open file, not a named one).
const OpenFile = "$open_file"

// Rule maps the calls of one tool to a native action.
type Rule struct {
	// Action is the native action kind the call becomes, or one the
	// importer resolves once the results are known (internalKinds).
	Action trajectory.Kind `yaml:"action" json:"action,omitempty"`
	// Native means the arguments are native step fields as they are.
	Native bool `yaml:"native" json:"native,omitempty"`
	// Args maps a native field (command, path, content, old, new,
	// insert_line, text, range, cwd, timeout, mode, note) to the argument
	// holding it: "a|b" takes a, else b; OpenFile is the last opened file.
	Args map[string]string `yaml:"args" json:"args,omitempty"`
	// By names the argument whose value chooses one of Cases.
	By string `yaml:"by" json:"by,omitempty"`
	// Cases are the rules chosen by the value of By.
	Cases map[string]Rule `yaml:"cases" json:"cases,omitempty"`
}

// ToolMap maps tool names to rules.
type ToolMap map[string]Rule

type toolFile struct {
	Tools ToolMap `yaml:"tools"`
}

// DefaultTools returns the built-in table (importer/tools.yaml, documented
// in docs/formats.md).
func DefaultTools() ToolMap {
	m, err := ParseToolMap("tools.yaml", defaultToolsYAML)
	if err != nil {
		panic(fmt.Sprintf("built-in tool map: %v", err)) // a test guards this
	}
	return m
}

// LoadToolMap reads a --tools-map file: the same shape as the built-in
// table ("tools:" then one rule per tool name).
func LoadToolMap(path string) (ToolMap, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("load tool map: %w", err)
	}
	return ParseToolMap(path, data)
}

// ParseToolMap decodes and checks a tool map document; name is used in errors.
func ParseToolMap(name string, data []byte) (ToolMap, error) {
	var f toolFile
	if err := yaml.UnmarshalWithOptions(data, &f, yaml.Strict()); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", name, ErrToolMap, err)
	}
	if len(f.Tools) == 0 {
		return nil, fmt.Errorf("%s: %w: no tools: expected a \"tools:\" mapping of tool names to rules", name, ErrToolMap)
	}
	for _, tool := range slices.Sorted(maps.Keys(f.Tools)) {
		if err := f.Tools[tool].check(); err != nil {
			return nil, fmt.Errorf("%s: %w: tools.%s: %w", name, ErrToolMap, tool, err)
		}
	}
	return f.Tools, nil
}

// Merge returns m with the rules of over added, replacing same-named ones.
func (m ToolMap) Merge(over ToolMap) ToolMap {
	out := maps.Clone(m)
	if out == nil {
		out = ToolMap{}
	}
	maps.Copy(out, over)
	return out
}

// mappable is the step arguments a tool map may fill, from trajectory's
// field table: every kind's arguments but the maps (env, headers, capture),
// which no foreign tool call carries in a form to map.
func mappable() map[string]trajectory.Arg {
	out := map[string]trajectory.Arg{}
	for _, k := range trajectory.Kinds {
		for _, a := range k.Args() {
			if a.Type != trajectory.ArgStringMap {
				out[a.Name] = a
			}
		}
	}
	return out
}

// internalKinds are the actions a rule may name that are no native
// action: the importer turns them into native steps once the results are
// attached (undo.go, background.go).
var internalKinds = map[trajectory.Kind]bool{kindUndo: true, kindBgStart: true, kindBgOutput: true, kindBgKill: true, kindNotebook: true, kindPatch: true,
	kindLeftRunning: true, kindInput: true}

func (r Rule) check() error {
	if r.By != "" {
		if len(r.Cases) == 0 {
			return fmt.Errorf("by %q needs cases", r.By)
		}
		for _, c := range slices.Sorted(maps.Keys(r.Cases)) {
			if err := r.Cases[c].check(); err != nil {
				return fmt.Errorf("cases.%s: %w", c, err)
			}
		}
		return nil
	}
	if !r.Action.Valid() && !internalKinds[r.Action] {
		return fmt.Errorf("action %q: expected one of shell, write_file, read_file, edit_file, http, noop, undo_edit, bash_output, kill_shell, notebook_edit, apply_patch", r.Action)
	}
	for _, f := range slices.Sorted(maps.Keys(r.Args)) {
		if _, ok := mappable()[f]; !ok {
			return fmt.Errorf("args.%s: unknown field; expected one of %s", f, strings.Join(slices.Sorted(maps.Keys(mappable())), ", "))
		}
	}
	return nil
}
