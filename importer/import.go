// Package importer turns trajectories written by other agents and tools
// (OpenAI chat messages, ATIF, SWE-agent, mini-swe-agent, OpenHands) into
// native rbx trajectories, and exports native trajectories as ATIF or
// OpenAI messages. Tool calls become actions through a documented,
// extensible table (ToolMap); calls it does not know are kept as noop steps
// and reported, never dropped.
package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/rbx-sandbox/rbx/task/source"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Format names a trajectory format.
type Format string

// Formats rbx imports.
const (
	FormatAuto         Format = "auto"
	FormatNative       Format = "native"
	FormatOpenAI       Format = "openai"
	FormatATIF         Format = "atif"
	FormatSWEAgent     Format = "swe-agent"
	FormatMiniSWEAgent Format = "mini-swe-agent"
	FormatOpenHands    Format = "openhands"
)

// Formats lists the trajectory formats Import accepts, auto first.
var Formats = []Format{FormatAuto, FormatNative, FormatOpenAI, FormatATIF, FormatSWEAgent, FormatMiniSWEAgent, FormatOpenHands}

// Valid reports whether f is a known format.
func (f Format) Valid() bool { return slices.Contains(Formats, f) }

// Result is what an import produced.
type Result struct {
	Trajectories []*trajectory.Trajectory
	Report       Report
}

// Import reads data, named name (used for ids and errors), as format f
// (FormatAuto detects it).
func Import(f Format, name string, data []byte, opts ...Option) (*Result, error) {
	c, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	if f == FormatAuto {
		if f, err = Detect(data); err != nil {
			if serr := source.CheckJSON(name, data); serr != nil {
				return nil, fmt.Errorf("import %w", serr)
			}
			return nil, fmt.Errorf("import %s: %w", name, err)
		}
	}
	id := c.id
	if id == "" {
		id = IDFromName(name)
	}
	res := &Result{Report: Report{Format: f}}
	var ts []*trajectory.Trajectory
	switch f {
	case FormatNative:
		ts, err = importNative(name, data, c)
	case FormatOpenAI:
		ts, err = one(importOpenAI(data, id, c, &res.Report))
	case FormatATIF:
		ts, err = one(importATIF(data, id, c, &res.Report))
	case FormatSWEAgent:
		ts, err = one(importSWEAgent(data, id, c, &res.Report))
	case FormatMiniSWEAgent:
		ts, err = one(importMiniSWE(data, id, c, &res.Report))
	case FormatOpenHands:
		ts, err = one(importOpenHands(data, id, c, &res.Report))
	default:
		return nil, fmt.Errorf("import %s: format %q: expected one of %v", name, f, Formats)
	}
	if err != nil {
		if _, syntax := errors.AsType[*json.SyntaxError](err); syntax && f != FormatNative {
			if serr := source.CheckJSON(name, data); serr != nil {
				return nil, fmt.Errorf("import %w", serr)
			}
		}
		return nil, fmt.Errorf("import %s as %s: %w", located(name, data, err), f, err)
	}
	for _, t := range ts {
		res.Report.count(t)
	}
	res.Trajectories = ts
	return res, nil
}

func one(t *trajectory.Trajectory, err error) ([]*trajectory.Trajectory, error) {
	if err != nil {
		return nil, err
	}
	return []*trajectory.Trajectory{t}, nil
}

func importNative(name string, data []byte, c config) ([]*trajectory.Trajectory, error) {
	jsonl := len(name) > 6 && name[len(name)-6:] == ".jsonl"
	ts, err := trajectory.Parse(name, data, jsonl)
	if err != nil {
		return nil, err
	}
	if c.id != "" && len(ts) == 1 {
		ts[0].ID = c.id
	}
	return ts, nil
}

// located is name with the line and column of the value err is about,
// when err carries its offset (a value of the wrong type: a list where
// the format has an object); name alone otherwise. Every format is JSON:
// a syntax error (a truncated file) is reported by Import through
// source.CheckJSON, at its line and column, whatever the format; both
// are looked for only once an import failed.
func located(name string, data []byte, err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return name
	}
	pos := source.JSONOffsetPos(data, int(te.Offset))
	return fmt.Sprintf("%s:%d:%d", name, pos.Line, pos.Column)
}
