package agent

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// Op kinds of a restore plan.
const (
	// OpRemove removes Path and everything under it.
	OpRemove = "rm"
	// OpCreate (re)creates Path as Type with its metadata; a file's
	// content (Size bytes) follows the op's line on the stream.
	OpCreate = "create"
	// OpMeta sets Path's owner, mode and mtime; Path must be of Type.
	OpMeta = "meta"
)

// Op is one step of a restore plan. A plan is JSON lines; an OpCreate of a
// file is followed by exactly Size raw bytes; OpEnd closes the plan.
type Op struct {
	Op   string `json:"op"`
	Path []byte `json:"p,omitempty"`
	Type string `json:"t,omitempty"`
	Mode uint32 `json:"m,omitempty"`
	UID  uint32 `json:"u,omitempty"`
	GID  uint32 `json:"g,omitempty"`
	Size int64  `json:"s,omitempty"`
	Link []byte `json:"l,omitempty"`
	Rdev uint64 `json:"r,omitempty"`
	// Mtime in ns; 0 leaves it.
	Mtime int64 `json:"mt,omitempty"`
	// InPlace rewrites an existing file (a mount root) instead of
	// replacing it.
	InPlace bool `json:"ip,omitempty"`
	// Xattrs are every extended attribute Path must have (others are
	// removed); Flags its inode flags (FlagsCompared), left alone when
	// NoFlags.
	Xattrs  []Xattr `json:"x,omitempty"`
	Flags   uint32  `json:"fl,omitempty"`
	NoFlags bool    `json:"nf,omitempty"`
	// HardLink makes an OpCreate of a file a hard link of that path
	// (created earlier in the plan): no content follows.
	HardLink []byte `json:"hl,omitempty"`
}

// carriesContent reports whether op is followed by Size bytes of content.
func (op Op) carriesContent() bool {
	return op.Op == OpCreate && op.Type == TypeFile && op.HardLink == nil
}

// OpEnd closes a plan.
const OpEnd = "end"

// PlanWriter writes a plan.
type PlanWriter struct {
	w   io.Writer
	enc *json.Encoder
}

// NewPlanWriter returns a writer of a plan onto w.
func NewPlanWriter(w io.Writer) *PlanWriter { return &PlanWriter{w: w, enc: json.NewEncoder(w)} }

// Write writes op, then content for a file's OpCreate (len(content) must be op.Size).
func (p *PlanWriter) Write(op Op, content io.Reader) error {
	if err := p.enc.Encode(op); err != nil {
		return err
	}
	if !op.carriesContent() {
		return nil
	}
	n, err := io.Copy(p.w, io.LimitReader(content, op.Size))
	if err == nil && n != op.Size {
		err = fmt.Errorf("plan %q: content %d bytes, want %d", op.Path, n, op.Size)
	}
	return err
}

// Close writes the end record.
func (p *PlanWriter) Close() error { return p.enc.Encode(Op{Op: OpEnd}) }

// PlanReader reads a plan.
type PlanReader struct{ r *bufio.Reader }

// NewPlanReader returns a reader of the plan on r.
func NewPlanReader(r io.Reader) *PlanReader { return &PlanReader{r: bufio.NewReaderSize(r, 1<<16)} }

// Next returns the next op and, for a file's OpCreate, a reader of exactly
// its content (to be read before the next call); io.EOF after OpEnd.
func (p *PlanReader) Next() (Op, io.Reader, error) {
	b, err := p.r.ReadSlice('\n')
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF // no end record
		}
		return Op{}, nil, fmt.Errorf("plan: %w", err)
	}
	var op Op
	if err := json.Unmarshal(b, &op); err != nil {
		return Op{}, nil, fmt.Errorf("plan: %w", err)
	}
	switch op.Op {
	case OpEnd:
		return Op{}, nil, io.EOF
	case OpRemove, OpMeta, OpCreate:
	default:
		return Op{}, nil, fmt.Errorf("plan: unknown op %q", op.Op)
	}
	if err := CheckPath(op.Path); err != nil {
		return Op{}, nil, fmt.Errorf("plan: %w", err)
	}
	if err := CheckXattrs(op.Xattrs); err != nil {
		return Op{}, nil, fmt.Errorf("plan %q: %w", op.Path, err)
	}
	if op.HardLink != nil {
		if err := CheckPath(op.HardLink); err != nil || op.Op != OpCreate || op.Type != TypeFile {
			return Op{}, nil, fmt.Errorf("plan %q: bad hard link to %q (%v)", op.Path, op.HardLink, err)
		}
	}
	if op.carriesContent() {
		return op, io.LimitReader(p.r, op.Size), nil
	}
	return op, nil, nil
}
