package trajectory

import (
	"encoding/json"
	"fmt"
	"io"
)

// Write writes t as indented JSON (two spaces, HTML characters left as
// they are), the .json form that Parse reads back into an equal value. A
// large output repeated in its step's messages is written once (see
// ContentFrom).
func Write(w io.Writer, t *Trajectory) error {
	if s := sharedOutputs(t); s != nil {
		t = s
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(t); err != nil {
		return fmt.Errorf("write trajectory %q: %w", t.ID, err)
	}
	return nil
}

// WriteLines writes ts in the .jsonl form: one compact object per line.
func WriteLines(w io.Writer, ts []*Trajectory) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	for _, t := range ts {
		if s := sharedOutputs(t); s != nil {
			t = s
		}
		if err := enc.Encode(t); err != nil {
			return fmt.Errorf("write trajectory %q: %w", t.ID, err)
		}
	}
	return nil
}
