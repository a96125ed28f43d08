package probe

import (
	"fmt"
	"image/color"
	"path/filepath"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// WriteChart draws p̂ against k with the Wilson interval as a shaded band
// and whiskers, θ as a dashed line and the bottleneck marked, to a PNG or
// SVG file chosen by path's extension.
func WriteChart(path string, r *Result) error {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".png" && ext != ".svg" {
		return fmt.Errorf("chart %s: expected a .png or .svg file", path)
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: p̂(k) of the %s policy (%s, %d rollouts per checkpoint)", r.Trajectory, r.Policy, r.Mode, r.Rollouts)
	p.X.Label.Text, p.Y.Label.Text = "checkpoint k", "success rate p̂"
	p.Y.Min, p.Y.Max = 0, 1.3 // room above 1 for the legend and the label
	p.X.Min, p.X.Max = -0.5, float64(max(r.T, 1))+0.5
	p.Add(plotter.NewGrid())
	var pts plotter.XYs
	var errs plotter.YErrors
	var upper, lower plotter.XYs
	for _, pt := range r.Points {
		if !pt.Known() {
			continue
		}
		x := float64(pt.K)
		pts = append(pts, plotter.XY{X: x, Y: pt.PHat})
		errs = append(errs, struct{ Low, High float64 }{pt.PHat - pt.Lo, pt.Hi - pt.PHat})
		upper, lower = append(upper, plotter.XY{X: x, Y: pt.Hi}), append(lower, plotter.XY{X: x, Y: pt.Lo})
	}
	if len(pts) > 0 {
		if err := addCurve(p, pts, errs, upper, lower, r.Confidence); err != nil {
			return fmt.Errorf("chart %s: %w", path, err)
		}
	}
	if err := addThreshold(p, r); err != nil {
		return fmt.Errorf("chart %s: %w", path, err)
	}
	if b := r.Bottleneck; b != nil {
		if err := addBottleneck(p, b); err != nil {
			return fmt.Errorf("chart %s: %w", path, err)
		}
	}
	p.Legend.Top, p.Legend.Left = true, false
	if err := p.Save(10*vg.Inch, 5*vg.Inch, path); err != nil {
		return fmt.Errorf("chart %s: %w", path, err)
	}
	return nil
}

func addCurve(p *plot.Plot, pts plotter.XYs, errs plotter.YErrors, upper, lower plotter.XYs, level float64) error {
	ring := append(plotter.XYs{}, upper...)
	for i := len(lower) - 1; i >= 0; i-- {
		ring = append(ring, lower[i])
	}
	band, err := plotter.NewPolygon(ring)
	if err != nil {
		return err
	}
	band.Color, band.LineStyle.Width, band.LineStyle.Color = color.NRGBA{R: 70, G: 130, B: 180, A: 60}, 0, nil
	line, points, err := plotter.NewLinePoints(pts)
	if err != nil {
		return err
	}
	line.Color, points.Color = color.RGBA{R: 31, G: 90, B: 160, A: 255}, color.RGBA{R: 31, G: 90, B: 160, A: 255}
	points.Shape = draw.CircleGlyph{}
	whiskers, err := plotter.NewYErrorBars(struct {
		plotter.XYer
		plotter.YErrorer
	}{pts, errs})
	if err != nil {
		return err
	}
	whiskers.Color = color.NRGBA{R: 31, G: 90, B: 160, A: 160}
	p.Add(band, whiskers, line, points)
	p.Legend.Add("p̂(k)", line, points)
	p.Legend.Add(fmt.Sprintf("%d%% Wilson interval", int(level*100+0.5)), band)
	return nil
}

func addThreshold(p *plot.Plot, r *Result) error {
	th, err := plotter.NewLine(plotter.XYs{{X: p.X.Min, Y: r.Threshold}, {X: p.X.Max, Y: r.Threshold}})
	if err != nil {
		return err
	}
	th.Color, th.Dashes = color.Gray{Y: 100}, []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(th)
	p.Legend.Add(fmt.Sprintf("θ = %.2f", r.Threshold), th)
	return nil
}

func addBottleneck(p *plot.Plot, b *Bottleneck) error {
	x := float64(b.K)
	v, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: 1.12}})
	if err != nil {
		return err
	}
	v.Color, v.Width = color.RGBA{R: 200, G: 30, B: 30, A: 255}, vg.Points(1.5)
	mark, err := plotter.NewScatter(plotter.XYs{{X: x, Y: b.PHat}})
	if err != nil {
		return err
	}
	mark.Shape, mark.Color, mark.Radius = draw.CrossGlyph{}, v.Color, vg.Points(6)
	labels, err := plotter.NewLabels(plotter.XYLabels{XYs: plotter.XYs{{X: x, Y: 1.08}},
		Labels: []string{fmt.Sprintf(" bottleneck k=%d: %s", b.K, clip(summary(b.Point), 40))}})
	if err != nil {
		return err
	}
	labels.TextStyle[0].Color = v.Color
	p.Add(v, mark, labels)
	p.Legend.Add("bottleneck", v)
	return nil
}
