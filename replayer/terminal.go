package replayer

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/charmbracelet/x/vt"

	"github.com/rbx-sandbox/rbx/sandbox"
)

const (
	// termKeep bounds the terminal output a session keeps (the start of
	// the current step's output is at most this far back).
	termKeep = 4 << 20
	// termSettle bounds the wait for a new terminal's prompt.
	termSettle = 5 * time.Second
)

// errNoTerminal: the sandbox's backend gives no terminal (keys steps).
var errNoTerminal = errors.New("the sandbox has no terminal")

// termSession is the terminal keys steps type into: the task's shell on
// a pseudo-terminal of the sandbox, its output kept (bounded) and drawn
// on a screen emulator, so that a step sees both what was printed since
// it typed and what the screen shows (an editor, a pager).
type termSession struct {
	proc sandbox.TerminalProcess
	emu  *vt.Emulator

	mu      sync.Mutex
	raw     []byte // the last termKeep bytes of output
	base    int64  // stream offset of raw[0]
	seen    int64  // stream offset up to which the last step looked
	changed chan struct{}
	last    time.Time // when output last came
	err     error     // why reading stopped (io.EOF: the shell ended)
}

// startTerminal starts the task's shell (bash, else sh) as a login shell
// on a new terminal of sb of rows by cols, in the workdir, as the
// sandbox's user.
func startTerminal(ctx context.Context, sb Sandbox, rows, cols int) (*termSession, error) {
	term, ok := sb.(sandbox.Terminal)
	if !ok {
		return nil, errNoTerminal
	}
	proc, err := term.StartTerminal(ctx, sandbox.TerminalRequest{
		Argv: []string{"/bin/sh", "-c", "command -v bash >/dev/null 2>&1 && exec bash --login; exec sh -l"},
		Env:  map[string]string{"TERM": "xterm-256color"}, Rows: uint16(rows), Cols: uint16(cols),
	})
	if err != nil {
		return nil, fmt.Errorf("start terminal: %w", err)
	}
	t := &termSession{proc: proc, emu: vt.NewEmulator(cols, rows), changed: make(chan struct{}), last: time.Now()}
	go t.read()
	go t.answer()
	t.settle(ctx)
	return t, nil
}

// read keeps the terminal's output until it ends.
func (t *termSession) read() {
	buf := make([]byte, 32<<10)
	for {
		n, err := t.proc.Read(buf)
		t.mu.Lock()
		if n > 0 {
			t.raw = append(t.raw, buf[:n]...)
			if over := len(t.raw) - termKeep; over > 0 {
				t.raw = append(t.raw[:0:0], t.raw[over:]...)
				t.base += int64(over)
			}
			_, _ = t.emu.Write(buf[:n])
			t.last = time.Now()
		}
		if err != nil {
			t.err = err
		}
		close(t.changed)
		t.changed = make(chan struct{})
		t.mu.Unlock()
		if err != nil {
			// Ends answer: its Read sees EOF. Not emu.Close, whose
			// unsynchronized flag answer's Read is checking.
			if c, ok := t.emu.InputPipe().(io.Closer); ok {
				_ = c.Close()
			}
			return
		}
	}
}

// answer sends the emulator's replies to the programs' queries (cursor
// position, device attributes) back to them, as a terminal does.
func (t *termSession) answer() {
	_, _ = io.Copy(t.proc, t.emu)
}

// mark is where a step's output begins: at the start of the line the
// previous step's look ended on, so that it holds the prompt its command
// was typed after and whatever came between the steps (a server's log
// line), as the agent's next look at its terminal showed them.
func (t *termSession) mark() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	end := int(min(max(t.seen-t.base, 0), int64(len(t.raw))))
	for i := end - 1; i >= 0; i-- {
		if t.raw[i] == '\n' {
			return t.base + int64(i) + 1
		}
	}
	return t.base
}

// look records that a step saw the output up to now.
func (t *termSession) look() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.seen = t.base + int64(len(t.raw))
}

// state is when output last came and why the terminal ended (nil while
// it runs); wait is closed at the next change. It copies nothing: a
// waiting step asks it at every change, and reads the output (view) only
// once the terminal has settled.
func (t *termSession) state() (last time.Time, ended error, wait <-chan struct{}) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last, t.err, t.changed
}

// view is what the terminal shows now: the output since offset from, and
// the screen.
func (t *termSession) view(from int64) (out, screen string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	i := max(from-t.base, 0)
	return string(t.raw[i:]), t.emu.String()
}

// settle waits for the shell to print its prompt: the terminal quiet a
// moment after its first output (at most termSettle), as a harness waits
// for its new pane, so that what is typed first is not echoed before it.
func (t *termSession) settle(ctx context.Context) {
	limit := time.After(termSettle)
	for {
		last, ended, wait := t.state()
		if ended != nil || (t.started() && time.Since(last) >= keysQuiet) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-limit:
			return
		case <-wait:
		case <-time.After(keysPoll):
		}
	}
}

// started reports whether the terminal printed anything yet.
func (t *termSession) started() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.base > 0 || len(t.raw) > 0
}
