// Package schemas embeds the JSON Schemas (draft 2020-12) of rbx's native
// formats, so that tools and the CLI can hand them out; docs/formats.md
// describes the same formats in prose.
package schemas

import _ "embed"

// Task is task.schema.json, the schema of task files (YAML or JSON).
//
//go:embed task.schema.json
var Task []byte

// Trajectory is trajectory.schema.json, the schema of one trajectory
// object (a .json file, or one line of a .jsonl file).
//
//go:embed trajectory.schema.json
var Trajectory []byte
