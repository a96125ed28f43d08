package dashboard

import (
	"bytes"
	"context"
	"fmt"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// stepRoute is the step route's label in rbx_serve_request_seconds.
const stepRoute = "POST /v1/episodes/{id}/step"

// scrape is what the dashboard reads of the server's /metrics.
type scrape struct {
	resets map[string]float64 // handed-out episodes by task (result ok)
	step   hist               // a whole step as the server saw it
	exec   hist               // the sandbox's own execution time of a step
	reset  hist               // one reset: pool wait and replay to k, all tasks
}

// metrics reads /metrics through the API and keeps the dashboard's series.
func (d *Dashboard) metrics(ctx context.Context) (scrape, error) {
	b, err := d.api.raw(ctx, "/metrics")
	if err != nil {
		return scrape{}, err
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(b))
	if err != nil {
		return scrape{}, fmt.Errorf("parse /metrics: %w", err)
	}
	s := scrape{resets: map[string]float64{}}
	for _, m := range fams["rbx_serve_resets_total"].GetMetric() {
		if label(m, "result") == "ok" {
			s.resets[label(m, "task")] += m.GetCounter().GetValue()
		}
	}
	for _, m := range fams["rbx_serve_request_seconds"].GetMetric() {
		if label(m, "route") == stepRoute {
			s.step = s.step.add(histOf(m))
		}
	}
	for _, m := range fams["rbx_serve_step_exec_seconds"].GetMetric() {
		s.exec = s.exec.add(histOf(m))
	}
	for _, m := range fams["rbx_serve_reset_seconds"].GetMetric() {
		s.reset = s.reset.add(histOf(m))
	}
	return s, nil
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

func histOf(m *dto.Metric) hist {
	h := m.GetHistogram()
	out := hist{count: float64(h.GetSampleCount()), sum: h.GetSampleSum()}
	for _, b := range h.GetBucket() {
		out.le = append(out.le, b.GetUpperBound())
		out.cum = append(out.cum, float64(b.GetCumulativeCount()))
	}
	return out
}

func (s scrape) total() float64 {
	t := 0.0
	for _, v := range s.resets {
		t += v
	}
	return t
}
