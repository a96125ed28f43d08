package server_test

import (
	"fmt"
	"io"
	"strings"
)

// settingFigures is what one setting (a served dataset) measured.
type settingFigures struct {
	Name         string   `json:"name"`
	Tasks        int      `json:"tasks"`
	Images       []string `json:"images"`
	Flags        []string `json:"serve_flags"`
	ListeningS   float64  `json:"startup_listening_s"`
	HealthyS     float64  `json:"startup_healthz_s"`
	IdleLive     int      `json:"idle_live"`
	PeakLive     int      `json:"peak_live"`
	Budget       int      `json:"budget"`        // capacity.max from /healthz; 0: not reported
	ReportedPeak int      `json:"reported_peak"` // capacity.peak from /healthz, for comparison only
	IdleMemMiB   float64  `json:"idle_mem_mib"`
	PeakMemMiB   float64  `json:"peak_mem_mib"`
	PeakRBXMiB   float64  `json:"peak_rbx_mib"`
	PeakShims    int      `json:"peak_shims"`
	Episodes     int      `json:"episodes"`
	WallS        float64  `json:"driver_wall_s"`
	EpisodesPerS float64  `json:"episodes_per_s"`
	ResetP50MS   float64  `json:"group_reset_p50_ms"`
	ResetP99MS   float64  `json:"group_reset_p99_ms"`
	ResetW50MS   float64  `json:"group_reset_with_429_wait_p50_ms"`
	ResetW99MS   float64  `json:"group_reset_with_429_wait_p99_ms"`
	Creates      int      `json:"sandboxes_created"`
	CreatesPerEp float64  `json:"sandboxes_created_per_episode"`
	Status429    int      `json:"status_429"`
	Errors       int      `json:"errors"`
	Left         int      `json:"sandboxes_left"`
	// CPUPerEp is the machine's busy CPU seconds per episode evaluated
	// while the driver ran; CPUByPerEp, by process category (cpuCategories).
	CPUPerEp   float64            `json:"cpu_s_per_episode"`
	CPUByPerEp map[string]float64 `json:"cpu_s_per_episode_by,omitempty"`
	Note       string             `json:"note,omitempty"`
}

// fill sets the driver's figures and the ratios derived from them.
func (f *settingFigures) fill(st *driveStats, creates int) {
	f.Episodes, f.WallS = int(st.episodes.Load()), st.wall.Seconds()
	if f.WallS > 0 {
		f.EpisodesPerS = float64(f.Episodes) / f.WallS
	}
	f.ResetP50MS, f.ResetP99MS = msOf(q(st.resets, .5)), msOf(q(st.resets, .99))
	f.ResetW50MS, f.ResetW99MS = msOf(q(st.resetsWait, .5)), msOf(q(st.resetsWait, .99))
	f.Creates = creates
	if f.Episodes > 0 {
		f.CreatesPerEp = float64(creates) / float64(f.Episodes)
	}
	f.Status429, f.Errors = int(st.n429.Load()), int(st.nErr.Load())
}

// fillCPU sets the CPU figures from cpuSpent's over the driver's run.
func (f *settingFigures) fillCPU(busy float64, by map[string]float64) {
	if f.Episodes == 0 {
		return
	}
	f.CPUPerEp = busy / float64(f.Episodes)
	f.CPUByPerEp = map[string]float64{}
	for k, v := range by {
		f.CPUByPerEp[k] = v / float64(f.Episodes)
	}
}

// cpuText is the CPU row's cell: busy, then each category.
func cpuText(f settingFigures) string {
	if f.CPUByPerEp == nil {
		return "-"
	}
	parts := make([]string, len(cpuCategories))
	for i, c := range cpuCategories {
		parts[i] = fmt.Sprintf("%.3f", f.CPUByPerEp[c])
	}
	return strings.Join(parts, " / ")
}

func mib(b int64) float64 { return float64(b) / (1 << 20) }

// datasetRows are the table's lines: a label and a figure's text.
var datasetRows = []struct {
	label string
	cell  func(f settingFigures) string
}{
	{"serve flags", func(f settingFigures) string { return orDash(strings.Join(f.Flags, " ")) }},
	{"images", func(f settingFigures) string { return strings.Join(shortImages(f.Images), ", ") }},
	{"start-up: process start → listening (s)", func(f settingFigures) string { return fmt.Sprintf("%.2f", f.ListeningS) }},
	{"start-up: process start → /healthz 200 (s)", func(f settingFigures) string { return fmt.Sprintf("%.2f", f.HealthyS) }},
	{"live sandboxes at idle", func(f settingFigures) string { return fmt.Sprint(f.IdleLive) }},
	{"peak live sandboxes (engine events)", func(f settingFigures) string { return fmt.Sprint(f.PeakLive) }},
	{"budget (/healthz capacity.max)", func(f settingFigures) string { return budgetText(f.Budget) }},
	{"  rbx's own peak (/healthz capacity.peak)", func(f settingFigures) string { return budgetText(f.ReportedPeak) }},
	{"shims + rbx RSS at idle (MiB)", func(f settingFigures) string { return fmt.Sprintf("%.0f", f.IdleMemMiB) }},
	{"shims + rbx RSS peak (MiB)", func(f settingFigures) string { return fmt.Sprintf("%.0f", f.PeakMemMiB) }},
	{"  of which rbx, at that peak (MiB)", func(f settingFigures) string { return fmt.Sprintf("%.0f", f.PeakRBXMiB) }},
	{"  shim processes at that peak", func(f settingFigures) string { return fmt.Sprint(f.PeakShims) }},
	{"episodes evaluated", func(f settingFigures) string { return fmt.Sprint(f.Episodes) }},
	{"driver wall time (s)", func(f settingFigures) string { return fmt.Sprintf("%.1f", f.WallS) }},
	{"episodes/s", func(f settingFigures) string { return fmt.Sprintf("%.2f", f.EpisodesPerS) }},
	{"group reset p50 / p99 (ms)", func(f settingFigures) string { return fmt.Sprintf("%.0f / %.0f", f.ResetP50MS, f.ResetP99MS) }},
	{"  with 429 waits p50 / p99 (ms)", func(f settingFigures) string { return fmt.Sprintf("%.0f / %.0f", f.ResetW50MS, f.ResetW99MS) }},
	{"sandboxes created per episode", func(f settingFigures) string { return fmt.Sprintf("%.2f (%d)", f.CreatesPerEp, f.Creates) }},
	{"CPU-s per episode (machine busy)", func(f settingFigures) string { return fmt.Sprintf("%.3f", f.CPUPerEp) }},
	{"  " + strings.Join(cpuCategories, " / "), cpuText},
	{"429 answers", func(f settingFigures) string { return fmt.Sprint(f.Status429) }},
	{"errors (non-429)", func(f settingFigures) string { return fmt.Sprint(f.Errors) }},
	{"sandboxes left after SIGTERM", func(f settingFigures) string { return fmt.Sprint(f.Left) }},
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func budgetText(n int) string {
	if n == 0 {
		return "not reported"
	}
	return fmt.Sprint(n)
}

// shortImages drops the rbx/ prefix and the tag, to keep columns narrow.
func shortImages(imgs []string) []string {
	out := make([]string, len(imgs))
	for i, s := range imgs {
		s = strings.TrimPrefix(s, "rbx/")
		s, _, _ = strings.Cut(s, ":")
		out[i] = s
	}
	return out
}

// writeTable prints one column per setting, as a Markdown table.
func writeTable(w io.Writer, settings []settingFigures) {
	fmt.Fprintf(w, "| figure |")
	for _, s := range settings {
		fmt.Fprintf(w, " %s |", s.Name)
	}
	fmt.Fprintf(w, "\n|---|%s\n", strings.Repeat("---:|", len(settings)))
	for _, r := range datasetRows {
		fmt.Fprintf(w, "| %s |", r.label)
		for _, s := range settings {
			fmt.Fprintf(w, " %s |", r.cell(s))
		}
		fmt.Fprintln(w)
	}
}
