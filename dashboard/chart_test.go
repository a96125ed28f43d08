package dashboard

import (
	"encoding/xml"
	"io"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/rbx-sandbox/rbx/curriculum"
	"github.com/rbx-sandbox/rbx/server/api"
)

func state(rates map[int]float64, stuck ...int) api.TaskState {
	st := api.TaskState{Status: curriculum.Status{Task: "t<&>", T: 10, K: 6, Phase: "bottleneck", Theta: 0.5, ThetaHigh: 0.625, Window: 8}}
	for k := 0; k < 10; k++ {
		r, ok := rates[k]
		if !ok {
			continue
		}
		c := curriculum.CheckpointStats{K: k, Episodes: 8, Successes: int(r * 8), Rate: r}
		for _, s := range stuck {
			if s == k {
				c.Stuck, c.FailRun = true, 40
			}
		}
		st.Checkpoints = append(st.Checkpoints, c)
	}
	return st
}

func TestCheckpointChart(t *testing.T) {
	tests := []struct {
		name       string
		st         api.TaskState
		bottleneck string // "" when none
		contains   []string
	}{
		{"empty", state(nil), "", []string{`data-points="0"`, "no observed episode yet"}},
		{"all mastered", state(map[int]float64{7: 1, 8: 1, 9: 0.75}), "", []string{`data-points="3"`, `data-k="9" data-rate="0.75"`}},
		{"bottleneck is the last below θ from the end", state(map[int]float64{2: 0, 6: 0.25, 7: 0.5, 8: 1, 9: 1}), "6",
			[]string{"bottleneck k=6", `fill="#e03131" data-k="6"`}},
		{"stuck", state(map[int]float64{6: 0, 9: 1}, 6), "6", []string{">stuck<", "fail run 40, STUCK"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := checkpointChart(tt.st)
			requireXML(t, doc)
			assert.Contains(t, doc, `aria-label="t&lt;&amp;&gt;: success rate per checkpoint`, "the task id is escaped")
			if tt.bottleneck == "" {
				assert.NotContains(t, doc, "data-bottleneck")
			} else {
				assert.Contains(t, doc, `data-bottleneck="`+tt.bottleneck+`"`)
			}
			for _, s := range tt.contains {
				assert.Contains(t, doc, s)
			}
		})
	}
}

func TestTrainingCharts(t *testing.T) {
	st := state(map[int]float64{9: 1, 8: 0.5})
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, ev := range []struct {
		k       int
		purpose string
		ok      bool
	}{{9, "rollback", true}, {9, "rollback", true}, {8, "rollback", false}, {3, "probe", false}, {8, "bottleneck", true}} {
		st.History = append(st.History, api.HistoryEvent{Episode: "e", K: ev.k, Purpose: ev.purpose, Success: ev.ok, At: at.Add(time.Duration(i) * time.Second)})
	}
	st.Checkpoints[1].Episodes = 10 // 18 observed in all: the ring kept the last 5
	for name, doc := range map[string]string{"success": successChart(st), "served": servedChart(st)} {
		requireXML(t, doc)
		assert.Contains(t, doc, `data-points="5"`, name)
		assert.Equal(t, 5, strings.Count(doc, `<circle class="pt"`), name)
		assert.Contains(t, doc, "<title>#14 ", name+": numbered after the episodes the ring dropped")
	}
	assert.Contains(t, servedChart(st), `data-k-now="6"`)
	assert.Equal(t, []float64{1, 1, 2.0 / 3, 0.5, 0.6}, trainingOf(st).rolling())
	moves := trainingOf(st).rollbacks()
	require.Len(t, moves, 1, "the probe at k=3 is not a move of the curriculum")
	assert.Equal(t, move{N: 16, At: at.Add(2 * time.Second), From: 9, To: 8, Purpose: "rollback"}, moves[0])
}

func TestHistQuantile(t *testing.T) {
	h := hist{count: 10, sum: 0.05, le: []float64{0.001, 0.01, 0.1, math.Inf(1)}, cum: []float64{0, 8, 10, 10}}
	assert.InDelta(t, 0.001+0.009*5/8, h.quantile(0.5), 1e-12)
	assert.InDelta(t, 0.01+0.09*1.5/2, h.quantile(0.95), 1e-12)
	assert.InDelta(t, 0.005, h.mean(), 1e-12)
	assert.True(t, math.IsNaN(hist{}.quantile(0.5)))
	d := h.sub(hist{count: 8, sum: 0.02, le: h.le, cum: []float64{0, 8, 8, 8}})
	assert.Equal(t, 2.0, d.count)
	assert.InDelta(t, 0.01+0.09*1.9/2, d.quantile(0.95), 1e-12, "only the two new observations")
}

func TestSamplerRates(t *testing.T) {
	p := newSampler(time.Minute)
	t0 := time.Unix(1000, 0)
	r := p.observe(t0, scrape{resets: map[string]float64{"a": 10}}, 5*time.Second)
	assert.Zero(t, r.Since, "the first sample: lifetime figures")
	assert.InDelta(t, 2, r.Resets, 1e-9, "10 resets over 5 s of uptime")
	r = p.observe(t0.Add(4*time.Second), scrape{resets: map[string]float64{"a": 30, "b": 4}}, 9*time.Second)
	assert.Equal(t, 4*time.Second, r.Since)
	assert.InDelta(t, 6, r.Resets, 1e-9)
	assert.InDelta(t, 1, r.TaskResets["b"], 1e-9)
	r = p.observe(t0.Add(2*time.Minute), scrape{resets: map[string]float64{"a": 30, "b": 4}}, 129*time.Second)
	assert.InDelta(t, 34.0/129, r.Resets, 1e-9, "older samples left the window: lifetime again")
}

func requireXML(t *testing.T, doc string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(doc))
	dec.Strict = true
	for {
		_, err := dec.Token()
		if err == io.EOF {
			return
		}
		require.NoError(t, err, doc)
	}
}
