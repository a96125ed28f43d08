package sim

import (
	"errors"
	"fmt"
	"image/color"
	"os"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Series is one strategy's episodes, for plotting.
type Series struct {
	Strategy string
	Trace    []Point
}

// Plot writes a PNG with two panels: the checkpoint each episode started
// from (the rollback position, the seed's middle figure) and the success
// rate over a moving window of episodes, one line per strategy.
func Plot(path string, series []Series, smooth int) (err error) {
	pos, rate := plot.New(), plot.New()
	pos.Title.Text, pos.X.Label.Text, pos.Y.Label.Text = "Rollback position", "episode", "checkpoint k"
	rate.Title.Text, rate.X.Label.Text, rate.Y.Label.Text = fmt.Sprintf("Success rate (moving window of %d episodes)", smooth), "episode", "success rate"
	rate.Y.Min, rate.Y.Max = 0, 1
	for i, s := range series {
		ks, rs := make(plotter.XYs, len(s.Trace)), make(plotter.XYs, len(s.Trace))
		wins := 0
		for j, p := range s.Trace {
			if p.Success {
				wins++
			}
			if j >= smooth && s.Trace[j-smooth].Success {
				wins--
			}
			ks[j] = plotter.XY{X: float64(j), Y: float64(p.K)}
			rs[j] = plotter.XY{X: float64(j), Y: float64(wins) / float64(min(j+1, smooth))}
		}
		if err := addLine(pos, s.Strategy, ks, i); err != nil {
			return err
		}
		if err := addLine(rate, s.Strategy, rs, i); err != nil {
			return err
		}
	}
	img := vgimg.New(9*vg.Inch, 8*vg.Inch)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: 2, Cols: 1, PadY: vg.Centimeter, PadTop: vg.Millimeter * 3, PadBottom: vg.Millimeter * 3, PadLeft: vg.Millimeter * 3, PadRight: vg.Millimeter * 3}
	canvases := plot.Align([][]*plot.Plot{{pos}, {rate}}, tiles, dc)
	pos.Draw(canvases[0][0])
	rate.Draw(canvases[1][0])
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("plot: %w", err)
	}
	defer func() { err = errors.Join(err, f.Close()) }()
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(f); err != nil {
		return fmt.Errorf("plot %s: %w", path, err)
	}
	return nil
}

func addLine(p *plot.Plot, name string, xys plotter.XYs, i int) error {
	l, err := plotter.NewLine(xys)
	if err != nil {
		return fmt.Errorf("plot %s: %w", name, err)
	}
	l.Color = plotutil.Color(i)
	if name == Baseline {
		l.Color = color.Gray{Y: 128}
	}
	l.Width = vg.Points(1.2)
	p.Add(l)
	p.Legend.Add(name, l)
	return nil
}
