package timeline

import (
	"bufio"
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/runner"
)

// The page is one HTML file: a header line, the plot (drawn by the
// page's script from the data it carries, so zoom and pan redraw it)
// with the list of violations beside it, the faults and notes under
// that list; no request leaves the file.

//go:embed page.js
var pageJS string

//go:embed page.css
var pageCSS string

// Write renders res's timeline as one self-contained HTML page.
func Write(w io.Writer, res *runner.Result) error {
	bw := bufio.NewWriter(w)
	if err := writePage(bw, Build(res), summary(res)); err != nil {
		return err
	}
	return bw.Flush()
}

// esc escapes text for HTML bodies and attributes.
func esc(s string) string { return html.EscapeString(s) }

// summary is the header's one line about the run.
func summary(res *runner.Result) string {
	o := &res.Options
	return fmt.Sprintf("%d brokers, %d stream(s) × %d shards, %s simulated, %d operations",
		o.Brokers, o.Streams, o.Shards, secs(res.SimNs), res.Ops.Total)
}

func writePage(w *bufio.Writer, m *Model, line string) error {
	data, err := json.Marshal(newPageData(m))
	if err != nil {
		return fmt.Errorf("timeline: page data refused: %w", err)
	}
	fmt.Fprintf(w, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>%s — %s</title>\n<style>%s</style></head>\n<body>\n",
		esc(m.Title), esc(m.Verdict.Headline()), pageCSS)
	fmt.Fprintf(w, "<header><h1>%s: <span class=\"verdict %s\">%s</span></h1><span class=\"summary\" title=\"%s; %s\">%s; %s</span></header>\n",
		esc(m.Title), strings.ReplaceAll(m.Verdict.String(), " ", "-"), esc(m.Verdict.Headline()), esc(line), esc(opsNote(m)), esc(line), esc(opsNote(m)))
	w.WriteString("<main>\n<div id=\"plot-panel\">\n")
	w.WriteString(toolbarHTML)
	w.WriteString("<div id=\"plot\" tabindex=\"0\" aria-label=\"timeline plot\"><svg id=\"plot-svg\" xmlns=\"http://www.w3.org/2000/svg\"></svg></div>\n")
	w.WriteString(legendHTML)
	w.WriteString("<noscript><p class=\"note\">The plot is drawn by the page's script; with scripts off only the lists show.</p></noscript>\n")
	w.WriteString("</div>\n<aside id=\"side\">\n")
	writeFindings(w, m)
	writeNotes(w, m)
	writeFaults(w, m)
	w.WriteString("</aside>\n</main>\n")
	fmt.Fprintf(w, "<script type=\"application/json\" id=\"timeline-data\">%s</script>\n", data)
	w.WriteString("<script>" + pageJS + "</script>\n</body></html>\n")
	return nil
}

// opsNote says how the operations are drawn: one by one, or counted in
// bins outside the exact stretch.
func opsNote(m *Model) string {
	total, exact := 0, 0
	for _, c := range m.Clients {
		exact += len(c.Ops)
		for _, b := range c.Bins {
			for _, n := range b {
				total += n
			}
		}
	}
	if exact == total {
		return "every operation drawn one by one when zoomed in"
	}
	var spans []string
	for _, r := range m.Exact {
		spans = append(spans, fmt.Sprintf("%s–%s", secs(int64(r.From)*m.BinNs), secs(min(int64(r.To)*m.BinNs, m.EndNs))))
	}
	where := "only the violating ones"
	if len(spans) > 0 {
		where = "those invoked in " + strings.Join(spans, ", ") + " and the violating ones"
	}
	return fmt.Sprintf("%d of them drawn one by one (%s); every operation is counted per %s of invocation", exact, where, secs(m.BinNs))
}

// writeFindings is the list beside the plot: each violated invariant,
// when it shows, the operations that show it, and its message.
func writeFindings(w *bufio.Writer, m *Model) {
	fmt.Fprintf(w, "<section id=\"findings\"><h2>Violations (%d)</h2>\n", len(m.Findings))
	if len(m.Findings) == 0 {
		w.WriteString("<p class=\"held\">Every check held.</p>\n")
	}
	w.WriteString("<ol>\n")
	for i, f := range m.Findings {
		fmt.Fprintf(w, "<li class=\"finding\" data-finding=\"%d\" data-at-ns=\"%d\"><h3><a href=\"#finding-%d\" class=\"finding-link\">%s</a></h3><p class=\"when\">%s</p>\n",
			i, f.AtNs, i, esc(f.Invariant), esc(f.WhenText()))
		fmt.Fprintf(w, "<p class=\"first\">%s</p>\n", esc(f.firstLine()))
		if len(f.Evidence) > 0 {
			w.WriteString("<ul class=\"ops\">\n")
			for _, e := range f.Evidence {
				fmt.Fprintf(w, "<li><a class=\"evidence\" href=\"#op-%d\" data-op=\"%d\">%s</a></li>\n", e.Op, e.Op, esc(evidenceText(e)))
			}
			w.WriteString("</ul>\n")
		}
		if len(f.Brokers) > 0 {
			fmt.Fprintf(w, "<p class=\"brokers\">its finding names %s</p>\n", esc(strings.Join(f.Brokers, ", ")))
		}
		fmt.Fprintf(w, "<details><summary>the check's message</summary><p class=\"msg\">%s</p></details></li>\n", esc(f.Message))
	}
	w.WriteString("</ol></section>\n")
}

func writeNotes(w *bufio.Writer, m *Model) {
	for _, n := range m.Notes {
		fmt.Fprintf(w, "<p class=\"note\">%s</p>\n", esc(n))
	}
}

// writeFaults is the faults' list under the violations; the page's
// script fills it from the data (each a link that zooms the plot to its
// fault), so the labels are carried once.
func writeFaults(w *bufio.Writer, m *Model) {
	open := ""
	if len(m.Findings) == 0 {
		open = " open"
	}
	fmt.Fprintf(w, "<details id=\"faults\"%s><summary>Faults (%d)</summary><ol id=\"fault-list\"></ol></details>\n", open, len(m.Faults))
}

const toolbarHTML = `<div id="toolbar" role="toolbar" aria-label="time axis">
<button type="button" id="zoom-out" title="zoom out (key -)">−</button><button type="button" id="zoom-in" title="zoom in (key +)">+</button>
<button type="button" id="pan-left" title="pan left (key ←)">◀</button><button type="button" id="pan-right" title="pan right (key →)">▶</button>
<button type="button" id="reset" title="show the whole run (key 0)">reset</button>
<span id="range"></span><span id="cursor"></span>
<span class="hint">wheel: zoom · shift+wheel or drag: pan · keys + − ← → 0</span>
</div>
`

const legendHTML = `<p class="legend"><span class="sw leader">leader (group g, term t)</span><span class="sw down">down</span><span class="sw paused">paused</span>
<span class="sw net">network fault</span><span class="sw disk">disk fault</span><span class="sw clock">clock fault</span><span class="sw fault">process fault</span>
<span class="sw op-ok">ok</span><span class="sw op-refused">refused</span><span class="sw op-failed">failed</span><span class="sw op-unknown">unknown</span><span class="sw op-pending">pending</span>
<span class="sw violating">violating op</span> — time is simulated; hover for details</p>
`

// pageData is what the page's script draws from.
type pageData struct {
	Digits   string       `json:"digits"`
	EndNs    int64        `json:"endNs"`
	BinNs    int64        `json:"binNs"`
	Bins     int          `json:"bins"`
	Exact    [][2]int     `json:"exact"`
	Lanes    []pageLane   `json:"lanes"`
	Faults   []pageFault  `json:"faults"`
	Clients  []pageClient `json:"clients"`
	Kinds    []string     `json:"kinds"`    // by properties.HistoryKind
	Outcomes []string     `json:"outcomes"` // by properties.HistoryOutcome
	Classes  []string     `json:"classes"`  // the bins' outcomes, in Outcomes' order
	Scopes   []string     `json:"scopes"`
	Bad      []pageBad    `json:"bad"`
	Findings [][]uint64   `json:"findings"` // each finding's operation ids
}

type pageLane struct {
	Name string `json:"name"`
	Rows int    `json:"rows"`
	// Bars are [row, from ns, to ns, class, label, title, fault, instant
	// (0 or 1)]; a fault's bar has no label or title of its own: its
	// fault's are shown.
	Bars [][8]any `json:"bars"`
}

type pageFault struct {
	Label string `json:"label"`
	N     int    `json:"n"` // its place among the plan's faults, from 1
	AtNs  int64  `json:"at"`
	EndNs int64  `json:"end"`
}

type pageClient struct {
	Name string   `json:"name"`
	Rows int      `json:"rows"`
	N    int      `json:"n"`
	Ops  string   `json:"ops"`
	Bins []string `json:"bins"`
}

// pageBad is a violating operation, in nanoseconds, with its lane.
type pageBad struct {
	Op     uint64 `json:"op"`
	Client int    `json:"lane"`
	Row    int    `json:"row"`
	FromNs int64  `json:"f"`
	ToNs   int64  `json:"t"`
	Inv    string `json:"inv"`
	Detail string `json:"detail"`
}

func newPageData(m *Model) *pageData {
	d := &pageData{Digits: digits, EndNs: m.EndNs, BinNs: m.BinNs, Bins: binCount(m.EndNs, m.BinNs), Exact: [][2]int{}}
	for _, r := range m.Exact {
		d.Exact = append(d.Exact, [2]int{r.From, r.To})
	}
	for k := properties.HistoryKind(0); k < 16 && !strings.HasPrefix(k.String(), "HistoryKind("); k++ {
		d.Kinds = append(d.Kinds, k.String())
	}
	for o := properties.HistoryOutcome(0); o < 8 && !strings.HasPrefix(o.String(), "HistoryOutcome("); o++ {
		d.Outcomes = append(d.Outcomes, o.String())
	}
	for _, o := range Outcomes {
		d.Classes = append(d.Classes, o.String())
	}
	for _, l := range m.Lanes {
		pl := pageLane{Name: l.Name, Rows: l.Rows, Bars: make([][8]any, 0, len(l.Bars))}
		for _, b := range l.Bars {
			label, title, instant := b.Label, b.Title, 0
			if b.Fault != 0 {
				label, title = "", ""
			}
			if b.Instant {
				instant = 1
			}
			pl.Bars = append(pl.Bars, [8]any{b.Row, b.FromNs, b.ToNs, b.Class, label, title, b.Fault, instant})
		}
		d.Lanes = append(d.Lanes, pl)
	}
	for _, f := range m.Faults {
		d.Faults = append(d.Faults, pageFault{Label: f.Label, N: f.PlanIndex, AtNs: f.AtNs, EndNs: f.EndNs})
	}
	addPageOps(d, m)
	for _, f := range m.Findings {
		ids := []uint64{}
		for _, e := range f.Evidence {
			ids = append(ids, e.Op)
		}
		d.Findings = append(d.Findings, ids)
	}
	return d
}

// addPageOps encodes the client lanes and lists the violating operations.
func addPageOps(d *pageData, m *Model) {
	scopes := map[string]int{}
	d.Scopes, d.Bad = []string{}, []pageBad{}
	for li, c := range m.Clients {
		for _, o := range c.Ops {
			if _, ok := scopes[o.Scope]; !ok {
				scopes[o.Scope] = len(d.Scopes)
				d.Scopes = append(d.Scopes, o.Scope)
			}
			if o.Invariant != "" {
				d.Bad = append(d.Bad, pageBad{Op: o.ID, Client: li, Row: o.Row, FromNs: o.FromNs, ToNs: o.ToNs, Inv: o.Invariant, Detail: o.Detail})
			}
		}
		pc := pageClient{Name: c.Name, Rows: c.Rows, N: len(c.Ops), Ops: encodeOps(c.Ops, scopes)}
		for _, b := range c.Bins {
			pc.Bins = append(pc.Bins, encodeBins(b))
		}
		d.Clients = append(d.Clients, pc)
	}
}
