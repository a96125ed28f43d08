package dashboard

import (
	"fmt"
	"html"
	"math"
	"strconv"
	"strings"
)

// Colours of the charts, as SVG presentation attributes so that a chart
// looks the same inline and as a standalone .svg file.
const (
	colInk     = "#1f2933"
	colGrid    = "#d9e2ec"
	colMuted   = "#829ab1"
	colOK      = "#2f9e44"
	colFail    = "#e03131"
	colWarn    = "#f08c00"
	colLine    = "#1c7ed6"
	colTheta   = "#c92a2a"
	colCurrent = "#7048e8"
)

// plot maps data coordinates onto a fixed viewBox with margins.
type plot struct {
	w, h                   float64 // the viewBox
	left, right, top, bot  float64 // margins
	xmin, xmax, ymin, ymax float64
	b                      strings.Builder
}

func newPlot(xmin, xmax, ymin, ymax float64) *plot {
	if xmax <= xmin {
		xmax = xmin + 1
	}
	if ymax <= ymin {
		ymax = ymin + 1
	}
	return &plot{w: 480, h: 250, left: 44, right: 48, top: 26, bot: 38, xmin: xmin, xmax: xmax, ymin: ymin, ymax: ymax}
}

func (p *plot) x(v float64) float64 {
	return p.left + (v-p.xmin)/(p.xmax-p.xmin)*(p.w-p.left-p.right)
}

func (p *plot) y(v float64) float64 {
	return p.h - p.bot - (v-p.ymin)/(p.ymax-p.ymin)*(p.h-p.top-p.bot)
}

// open starts the document: attrs are extra attributes of the root
// (data-* hooks for scripts and tests), label its accessible name.
func (p *plot) open(name, label string, attrs ...string) {
	fmt.Fprintf(&p.b, `<svg xmlns="http://www.w3.org/2000/svg" class="chart" data-chart="%s" viewBox="0 0 %g %g" role="img" aria-label="%s"`,
		esca(name), p.w, p.h, esca(label))
	for i := 0; i+1 < len(attrs); i += 2 {
		fmt.Fprintf(&p.b, ` %s="%s"`, attrs[i], esca(attrs[i+1]))
	}
	fmt.Fprintf(&p.b, `><title>%s</title>`, esca(label))
}

func (p *plot) close() string {
	p.b.WriteString(`</svg>`)
	return p.b.String()
}

func (p *plot) line(x1, y1, x2, y2 float64, stroke string, width float64, dash string) {
	fmt.Fprintf(&p.b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" stroke-width="%g"`, x1, y1, x2, y2, stroke, width)
	if dash != "" {
		fmt.Fprintf(&p.b, ` stroke-dasharray="%s"`, dash)
	}
	p.b.WriteString(`/>`)
}

// text writes s at (x, y); anchor is start, middle or end.
func (p *plot) text(x, y float64, anchor, fill string, size float64, s string) {
	fmt.Fprintf(&p.b, `<text x="%.1f" y="%.1f" text-anchor="%s" fill="%s" font-size="%g" font-family="sans-serif">%s</text>`,
		x, y, anchor, fill, size, esca(s))
}

// hline draws a horizontal rule at data y with a label in the right
// margin, clear of the data.
func (p *plot) hline(v float64, stroke, dash, label string) {
	y := p.y(v)
	p.line(p.left, y, p.w-p.right, y, stroke, 1, dash)
	if label != "" {
		p.text(p.w-p.right+3, y+4, "start", stroke, 11, label)
	}
}

// axes draws the frame, y ticks and both axis titles.
func (p *plot) axes(xtitle, ytitle string, yticks []float64, yfmt func(float64) string) {
	for _, v := range yticks {
		y := p.y(v)
		p.line(p.left, y, p.w-p.right, y, colGrid, 1, "")
		p.text(p.left-5, y+4, "end", colMuted, 12, yfmt(v))
	}
	p.line(p.left, p.h-p.bot, p.w-p.right, p.h-p.bot, colInk, 1, "")
	p.line(p.left, p.top, p.left, p.h-p.bot, colInk, 1, "")
	p.text((p.left+p.w-p.right)/2, p.h-6, "middle", colInk, 13, xtitle)
	p.text(4, p.top-10, "start", colInk, 13, ytitle)
}

// xticks labels about n integer positions of [xmin, xmax].
func (p *plot) xticks(n int) {
	step := math.Max(1, math.Ceil((p.xmax-p.xmin)/float64(n)))
	for v := math.Ceil(p.xmin); v <= p.xmax; v += step {
		x := p.x(v)
		p.line(x, p.h-p.bot, x, p.h-p.bot+4, colInk, 1, "")
		p.text(x, p.h-p.bot+15, "middle", colMuted, 12, strconv.Itoa(int(v)))
	}
}

// dot is one data point with its tooltip and data-* attributes.
func (p *plot) dot(x, y, r float64, fill, tip string, attrs ...string) {
	fmt.Fprintf(&p.b, `<circle class="pt" cx="%.1f" cy="%.1f" r="%g" fill="%s"`, p.x(x), p.y(y), r, fill)
	for i := 0; i+1 < len(attrs); i += 2 {
		fmt.Fprintf(&p.b, ` %s="%s"`, attrs[i], esca(attrs[i+1]))
	}
	fmt.Fprintf(&p.b, `><title>%s</title></circle>`, esca(tip))
}

// polyline joins data points.
func (p *plot) polyline(xs, ys []float64, stroke string, width float64, step bool) {
	if len(xs) < 2 {
		return
	}
	var pts strings.Builder
	for i := range xs {
		if step && i > 0 {
			fmt.Fprintf(&pts, "%.1f,%.1f ", p.x(xs[i]), p.y(ys[i-1]))
		}
		fmt.Fprintf(&pts, "%.1f,%.1f ", p.x(xs[i]), p.y(ys[i]))
	}
	fmt.Fprintf(&p.b, `<polyline fill="none" stroke="%s" stroke-width="%g" points="%s"/>`, stroke, width, strings.TrimSpace(pts.String()))
}

// empty says there is nothing to draw yet.
func (p *plot) empty(msg string) {
	p.text(p.w/2, p.h/2, "middle", colMuted, 13, msg)
}

func pct(v float64) string { return fmt.Sprintf("%.0f%%", v*100) }

// esca escapes text and attribute values (HTML's escaping is XML's).
func esca(s string) string { return html.EscapeString(s) }
