package dashboard

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"math"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/rbx-sandbox/rbx/replayer"
	"github.com/rbx-sandbox/rbx/trajectory"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed assets
var assetFS embed.FS

// pages are the templates, one set per page: the layout, the partials
// shared by pages, and the page (whose named fragments the live routes
// render alone).
var pages = func() map[string]*template.Template {
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	out := map[string]*template.Template{}
	for _, n := range names {
		base := path.Base(n)
		if base == "layout.html" || base == "partials.html" {
			continue
		}
		out[base] = template.Must(template.New(base).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/partials.html", n))
	}
	return out
}()

var funcs = template.FuncMap{
	"pct": pct,
	"ms": func(v float64) string {
		switch {
		case math.IsNaN(v):
			return "–"
		case v < 10:
			return fmt.Sprintf("%.2f ms", v)
		}
		return fmt.Sprintf("%.0f ms", v)
	},
	"rate": func(v float64) string {
		if math.IsNaN(v) {
			return "–"
		}
		return fmt.Sprintf("%.2f", v)
	},
	"dur": func(d time.Duration) string {
		if d < 10*time.Second {
			return d.Round(time.Millisecond).String()
		}
		return d.Round(time.Second).String()
	},
	"when": func(t time.Time) string { return t.UTC().Format("15:04:05") },
	"svg":  func(s string) template.HTML { return template.HTML(s) }, // built by plot, text escaped there
	"summary": func(s trajectory.Step) string {
		return replayer.Summary(s)
	},
	"exit": func(code *int) string {
		if code == nil {
			return "–"
		}
		return fmt.Sprint(*code)
	},
	"ints": func(v []int) string { return strings.Trim(fmt.Sprint(v), "[]") },
}

// render writes the page (layout and content) with data.
func (d *Dashboard) render(w io.Writer, page string, data any) error {
	t, ok := pages[page]
	if !ok {
		return fmt.Errorf("render: no page %q", page)
	}
	var buf bytes.Buffer // a failing template must not leave half a page
	if err := t.ExecuteTemplate(&buf, "layout", data); err != nil {
		return fmt.Errorf("render %s: %w", page, err)
	}
	_, err := w.Write(buf.Bytes())
	return err
}

// fragments renders the named templates of a page: the live routes' payload.
func fragments(page string, data any, names ...string) (map[string]string, error) {
	out := map[string]string{}
	for _, n := range names {
		var buf bytes.Buffer
		if err := pages[page].ExecuteTemplate(&buf, n, data); err != nil {
			return nil, fmt.Errorf("render %s#%s: %w", page, n, err)
		}
		out[n] = buf.String()
	}
	return out, nil
}

// html writes a rendered page.
func (d *Dashboard) html(w http.ResponseWriter, page string, data any) error {
	var buf bytes.Buffer
	if err := d.render(&buf, page, data); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, err := w.Write(buf.Bytes())
	return err
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
}

// serveAsset serves the embedded stylesheet, script and icon.
func serveAsset(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	b, err := assetFS.ReadFile("assets/" + name)
	if err != nil || strings.Contains(name, "/") {
		http.NotFound(w, r)
		return
	}
	types := map[string]string{".css": "text/css; charset=utf-8", ".js": "text/javascript; charset=utf-8", ".svg": "image/svg+xml"}
	w.Header().Set("Content-Type", types[path.Ext(name)])
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(b)
}
