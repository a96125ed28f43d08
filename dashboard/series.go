package dashboard

import (
	"time"

	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/probe"
	"github.com/rbx-sandbox/rbx/server/api"
)

// training is a task's observed outcomes as the charts number them: the
// history ring holds the latest ones, numbered after those it dropped.
type training struct {
	offset int // observed episodes before events[0]
	events []api.HistoryEvent
	window int // W: the rolling success rate's window
}

func trainingOf(st api.TaskState) training {
	total := 0
	for _, c := range st.Checkpoints {
		total += c.Episodes
	}
	w := st.Window
	if w < 1 {
		w = 8
	}
	return training{offset: max(total-len(st.History), 0), events: st.History, window: w}
}

// n is the number of observed episode i of events (1-based).
func (t training) n(i int) int { return t.offset + i + 1 }

// rolling is the success rate over the window ending at each event.
func (t training) rolling() []float64 {
	out := make([]float64, len(t.events))
	succ := 0
	for i, ev := range t.events {
		if ev.Success {
			succ++
		}
		if j := i - t.window; j >= 0 && t.events[j].Success {
			succ--
		}
		out[i] = float64(succ) / float64(min(i+1, t.window))
	}
	return out
}

// positional reports whether an episode's k is the curriculum's position
// (not a Search-Learn probe or a caller's explicit k).
func positional(purpose string) bool {
	return purpose != string(curriculum.PurposeProbe) && purpose != string(curriculum.PurposeExplicit)
}

// move is one change of the checkpoint the curriculum trains.
type move struct {
	N        int // the observed episode that first trained To
	At       time.Time
	From, To int
	Purpose  string
}

// rollbacks lists the moves of the curriculum's position, newest first.
func (t training) rollbacks() []move {
	var out []move
	last := -1
	for i, ev := range t.events {
		if !positional(ev.Purpose) {
			continue
		}
		if last >= 0 && ev.K != last {
			out = append(out, move{N: t.n(i), At: ev.At, From: last, To: ev.K, Purpose: ev.Purpose})
		}
		last = ev.K
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out
}

// bottleneck applies the probe's rule (scanning from the end, the first
// checkpoint whose p̂ is below θ) to the curriculum's windowed p̂.
func bottleneck(st api.TaskState) (k int, ok bool) {
	pts := make([]probe.Point, len(st.Checkpoints))
	for i, c := range st.Checkpoints {
		pts[i] = probe.Point{K: c.K, N: c.Episodes, Successes: c.Successes, PHat: c.Rate}
	}
	theta := st.Theta
	if theta == 0 {
		theta = 0.5
	}
	if i := probe.FindBottleneck(pts, theta); i >= 0 {
		return pts[i].K, true
	}
	return 0, false
}
