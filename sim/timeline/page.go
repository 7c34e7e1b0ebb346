package timeline

import (
	"bufio"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/felixsim/felixsim/sim/runner"
)

// Page geometry, in CSS pixels.
const (
	labelWidthPx  = 90
	rowHeightPx   = 14
	laneGapPx     = 10
	axisHeightPx  = 22
	pxPerSecond   = 60
	plotWidthMin  = 1200
	plotWidthMax  = 12000
	labelMinPx    = 30 // a bar narrower than this carries no label
	tickSecondsGo = 1
)

// Write renders res's timeline as one self-contained HTML page.
func Write(w io.Writer, res *runner.Result) error {
	bw := bufio.NewWriter(w)
	writePage(bw, Build(res))
	return bw.Flush()
}

// esc escapes text for HTML bodies and attributes.
func esc(s string) string { return html.EscapeString(s) }

func writePage(w *bufio.Writer, m *Model) {
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>%s — %s</title>\n<style>%s</style></head>\n<body>\n",
		esc(m.Title), esc(m.Verdict), pageCSS)
	fmt.Fprintf(w, "<h1>%s: <span class=\"verdict %s\">%s</span></h1>\n", esc(m.Title), strings.ToLower(esc(m.Verdict)), esc(m.Verdict))
	writeFindings(w, m)
	for _, n := range m.Notes {
		fmt.Fprintf(w, "<p class=\"note\">%s</p>\n", esc(n))
	}
	w.WriteString(legendHTML)
	w.WriteString("<div id=\"plot\">\n")
	writeSVG(w, m)
	w.WriteString("</div>\n<script>" + pageJS + "</script>\n</body></html>\n")
}

// writeFindings is the explanation at the top: each violated invariant,
// its message and the operations that show it, linked to their bars.
func writeFindings(w *bufio.Writer, m *Model) {
	w.WriteString("<section id=\"findings\">\n")
	if len(m.Findings) == 0 {
		w.WriteString("<p>Every check held.</p>\n")
	}
	for _, f := range m.Findings {
		fmt.Fprintf(w, "<div class=\"finding\"><h2>%s</h2><p class=\"msg\">%s</p>\n<ul>\n", esc(f.Invariant), esc(f.Message))
		for _, e := range f.Evidence {
			fmt.Fprintf(w, "<li><a class=\"evidence\" href=\"#op-%d\" data-op=\"op-%d\">%s</a></li>\n", e.Op, e.Op, esc(e.String()))
		}
		w.WriteString("</ul></div>\n")
	}
	w.WriteString("</section>\n")
}

// plotWidth is the time axis' width in pixels.
func plotWidth(endNs int64) int {
	return min(max(int(float64(endNs)/1e9*pxPerSecond), plotWidthMin), plotWidthMax)
}

func writeSVG(w *bufio.Writer, m *Model) {
	plotW := plotWidth(m.EndNs)
	height := axisHeightPx
	for _, l := range m.Lanes {
		height += l.Rows*rowHeightPx + laneGapPx
	}
	x := func(ns int64) float64 { return labelWidthPx + float64(ns)/float64(m.EndNs)*float64(plotW) }
	fmt.Fprintf(w, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\">\n", labelWidthPx+plotW+10, height)
	writeAxis(w, m.EndNs, height, x)
	y := axisHeightPx
	for li, l := range m.Lanes {
		laneH := l.Rows * rowHeightPx
		fmt.Fprintf(w, "<g class=\"lane\" data-lane=\"%s\"><rect class=\"lane-bg%d\" x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\"/>",
			esc(l.Name), li%2, y, labelWidthPx+plotW, laneH)
		fmt.Fprintf(w, "<text class=\"lane-name\" x=\"4\" y=\"%d\">%s</text>\n", y+12, esc(l.Name))
		for _, b := range l.Bars {
			writeBar(w, b, y, x)
		}
		w.WriteString("</g>\n")
		y += laneH + laneGapPx
	}
	for _, mk := range m.Marks {
		fmt.Fprintf(w, "<g class=\"mark\"><line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/><text x=\"%.1f\" y=\"%d\">%s</text></g>\n",
			x(mk.AtNs), axisHeightPx, x(mk.AtNs), height, x(mk.AtNs)+3, axisHeightPx+10, esc(mk.Label))
	}
	w.WriteString("</svg>\n")
}

func writeAxis(w *bufio.Writer, endNs int64, height int, x func(int64) float64) {
	step := int64(tickSecondsGo * 1e9)
	for endNs/step > 40 {
		step *= 2
	}
	for t := int64(0); t <= endNs; t += step {
		fmt.Fprintf(w, "<line class=\"tick\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/><text class=\"tick-label\" x=\"%.1f\" y=\"14\">%ds</text>\n",
			x(t), axisHeightPx-4, x(t), height, x(t)+2, t/1e9)
	}
}

func writeBar(w *bufio.Writer, b Bar, laneY int, x func(int64) float64) {
	y := laneY + b.Row*rowHeightPx + 1
	h := rowHeightPx - 2
	id := ""
	if b.ID != "" {
		id = fmt.Sprintf(" id=\"%s\"", esc(b.ID))
	}
	x0 := x(b.FromNs)
	if b.Instant {
		fmt.Fprintf(w, "<g class=\"instant %s\"%s><title>%s</title><line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/><text x=\"%.1f\" y=\"%d\">%s</text></g>\n",
			esc(b.Class), id, esc(b.Title), x0, y, x0, y+h, x0+2, y+h-2, esc(b.Label))
		return
	}
	wpx := max(x(b.ToNs)-x0, 1.5)
	fmt.Fprintf(w, "<g class=\"bar %s\"%s><title>%s</title><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\"/>", esc(b.Class), id, esc(b.Title), x0, y, wpx, h)
	if wpx >= labelMinPx || b.Class == "violating" {
		fmt.Fprintf(w, "<text x=\"%.1f\" y=\"%d\">%s</text>", x0+2, y+h-2, esc(b.Label))
	}
	w.WriteString("</g>\n")
}

const pageCSS = `
body{font:13px/1.4 system-ui,sans-serif;margin:16px;color:#222}
h1{font-size:18px} h2{font-size:15px;margin:4px 0;color:#a00}
.verdict.pass{color:#080}.verdict.fail,.verdict.crash{color:#c00}
.finding{border-left:4px solid #c00;padding:4px 10px;margin:8px 0;background:#fff4f4}
.msg{font-family:monospace;white-space:pre-wrap;margin:4px 0}
.note{color:#850}
#plot{overflow-x:auto;border:1px solid #ccc}
.legend span{display:inline-block;padding:1px 6px;margin-right:6px;border-radius:3px}
svg text{font-size:10px;pointer-events:none}
.lane-bg0{fill:#fafafa}.lane-bg1{fill:#f0f0f0}
.lane-name{font-weight:bold;font-size:11px}
.tick{stroke:#ddd}.tick-label{fill:#666}
.bar rect{stroke:none}
.leader rect{fill:#7fb3e6}.down rect{fill:#555}.down text{fill:#fff}.paused rect{fill:#e6c46b}
.net rect{fill:#d9a3e8;opacity:.8}.disk rect{fill:#f2a65a;opacity:.8}
.instant line{stroke:#c60;stroke-width:2}.instant.clock line{stroke:#06c}.instant.net line{stroke:#90c}
.op-ok rect{fill:#9bd49b}.op-refused rect{fill:#c9c9f0}.op-failed rect{fill:#bbb}
.op-unknown rect{fill:#f3e08a}.op-pending rect{fill:#f3b08a}
.violating rect{fill:#e00;stroke:#600;stroke-width:2}.violating text{fill:#600;font-weight:bold}
.violating.flash rect{fill:#ff0}
.mark line{stroke:#e00;stroke-width:1.5;stroke-dasharray:4 3}.mark text{fill:#c00;font-weight:bold}
`

const legendHTML = `<p class="legend"><b>Legend:</b>
<span style="background:#7fb3e6">leader (group g, term t)</span><span style="background:#555;color:#fff">broker down</span>
<span style="background:#e6c46b">paused</span><span style="background:#d9a3e8">network fault</span>
<span style="background:#f2a65a">disk or clock fault</span><span style="background:#9bd49b">op ok</span>
<span style="background:#c9c9f0">refused</span><span style="background:#bbb">failed</span><span style="background:#f3e08a">unknown</span>
<span style="background:#e00;color:#fff">violating op</span> — hover a bar for details; time is simulated.</p>
`

// pageJS flashes a violating operation's bar when its evidence is chosen.
const pageJS = `
document.querySelectorAll('a.evidence').forEach(function(a){
  a.addEventListener('click', function(){
    var g = document.getElementById(a.dataset.op);
    if (!g) { return; }
    g.classList.add('flash');
    setTimeout(function(){ g.classList.remove('flash'); }, 1500);
  });
});
`
