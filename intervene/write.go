package intervene

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/rbx-sandbox/rbx/importer"
	"github.com/rbx-sandbox/rbx/trajectory"
)

// Files written by WriteFiles into its directory.
const (
	// FileTrajectories holds the kept trajectories, native, one per line.
	FileTrajectories = "trajectories.jsonl"
	// FileOpenAI holds the kept trajectories as OpenAI chats, one per
	// line, each message flagged "intervened".
	FileOpenAI = "openai.jsonl"
	// FileATIF holds the kept trajectories as ATIF, one per line, with
	// extra.rbx.intervened per step.
	FileATIF = "atif.jsonl"
	// FileDropped holds the rescued trajectories the shift filter dropped,
	// native, for inspection.
	FileDropped = "dropped.jsonl"
)

// Chat is one line of FileOpenAI: the conversation and what a trainer
// needs to mask it. The first PrefixMessages messages are the prompt (the
// instruction and the reference prefix to k, the reset state); after
// them, assistant messages with "intervened": false are the policy's own
// turns, those with true the intervener's.
type Chat struct {
	ID             string            `json:"id"`
	Task           string            `json:"task"`
	K              int               `json:"k"`
	PrefixMessages int               `json:"prefix_messages"`
	Share          float64           `json:"intervened_share"`
	TokenShare     float64           `json:"intervened_token_share"`
	Messages       []json.RawMessage `json:"messages"`
}

// WriteFiles writes the rescued trajectories of r into dir (created if
// missing): kept ones in every format, dropped ones natively.
func WriteFiles(dir string, r *Result) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("output directory: %w", err)
	}
	var native, dropped, chats, atifs []any
	for _, row := range r.Rows {
		tr := row.Trajectory
		if tr == nil || row.Outcome != OutcomeRescued {
			continue
		}
		if !row.Kept {
			dropped = append(dropped, tr)
			continue
		}
		c, err := chatOf(tr, r.K, row)
		if err != nil {
			return err
		}
		a, err := importer.ExportATIF(tr)
		if err != nil {
			return fmt.Errorf("export %s to ATIF: %w", tr.ID, err)
		}
		native, chats, atifs = append(native, tr), append(chats, c), append(atifs, a)
	}
	return errors.Join(writeLines(filepath.Join(dir, FileTrajectories), native), writeLines(filepath.Join(dir, FileOpenAI), chats),
		writeLines(filepath.Join(dir, FileATIF), atifs), writeLines(filepath.Join(dir, FileDropped), dropped))
}

// chatOf exports tr as OpenAI messages and counts its prompt: the
// trajectory's own messages and those of the k prefix steps.
func chatOf(tr *trajectory.Trajectory, k int, row Rollout) (*Chat, error) {
	o, err := importer.ExportOpenAI(tr)
	if err != nil {
		return nil, fmt.Errorf("export %s to OpenAI: %w", tr.ID, err)
	}
	prefix := len(tr.Messages)
	for i := range k {
		if tr.Steps[i].Action == trajectory.KindNoop {
			prefix++ // ExportOpenAI writes a noop as one message
			continue
		}
		prefix += 2
	}
	return &Chat{ID: tr.ID, Task: tr.Task, K: k, PrefixMessages: prefix, Share: row.Share, TokenShare: row.TokenShare, Messages: o.Messages}, nil
}

func writeLines(path string, vs []any) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	enc.SetEscapeHTML(false)
	for _, v := range vs {
		if err := enc.Encode(v); err != nil {
			return errors.Join(fmt.Errorf("write %s: %w", path, err), f.Close())
		}
	}
	return f.Close()
}
