//go:build browser

package timeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/sim/runner"
)

// chromiumPath is Debian's chromium, which scripts/install-chromium.sh
// installs; `make timeline-test` (and so .ci/run) runs this test.
const chromiumPath = "/usr/bin/chromium"

// The first screen the page must fit: a laptop's browser window.
const screenW, screenH = 1280, 800

// TestTimelineInChromium: the page of a 60 s run with a planted bug is
// under 1 MB and loads in headless Chromium on a 1280x800 screen without
// a console error, an exception or any request beyond the file; the plot
// is on the first screen with the violations listed beside it, each with
// its time in seconds; the wheel zooms the time axis, a key and a drag
// pan it, reset restores it; choosing a violation zooms to its
// operations and highlights them; every fault's label is in seconds and
// names brokers that are rows, and it is drawn on the rows it names.
// Screenshots of the whole run and of the chosen violation are kept in
// TIMELINE_OUT (or the temp dir).
func TestTimelineInChromium(t *testing.T) {
	if _, err := os.Stat(chromiumPath); err != nil {
		t.Fatalf("%s missing (run scripts/install-chromium.sh): %v", chromiumPath, err)
	}
	res, err := runner.Run(runner.Options{Seed: 3, Defects: node.Defects{AckBeforeQuorum: true},
		KeepHistory: true, RecordTrace: true, Observe: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.OK() || res.Options.DurationNs != 60*s {
		t.Fatalf("seed 3 with ack-before-quorum (a %d ns run) passed; the page must show a violation of a 60 s run:\n%s", res.Options.DurationNs, res.Summary())
	}
	outDir := os.Getenv("TIMELINE_OUT")
	if outDir == "" {
		outDir = filepath.Join(os.TempDir(), "felixsim-timeline-test")
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		t.Fatal(err)
	}
	page := savePage(t, res, filepath.Join(outDir, "timeline.html"))
	fi, err := os.Stat(page)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() >= PageBytesMax {
		t.Fatalf("the 60 s run's page is %d bytes; want under %d", fi.Size(), PageBytesMax)
	}
	b := open(t, page)
	m := Build(res)
	checkFirstScreen(t, b, res, m)
	checkLabelsApart(t, b, "the whole run")
	whole := b.screenshot(t)
	checkZoomAndPan(t, b)
	checkViolationChosen(t, b)
	checkLabelsApart(t, b, "the first violation chosen")
	chosen := b.screenshot(t)
	checkFaultLabels(t, b, res)
	if problems := b.problems(); len(problems) > 0 {
		t.Fatalf("page %s: %d problems:\n%s", page, len(problems), strings.Join(problems, "\n"))
	}
	dense := densePage(t, outDir)
	for name, shot := range map[string][]byte{"timeline.png": chosen, "timeline-whole.png": whole, "timeline-dense.png": dense} {
		if err := os.WriteFile(filepath.Join(outDir, name), shot, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("timeline %s (%d bytes, %d operations); screenshots in %s: timeline-whole.png (the whole run), timeline.png (the first violation chosen), "+
		"timeline-dense.png (issue 32's dense run)", page, fi.Size(), res.Ops.Total, outDir)
}

// densePage opens the page of issue 32's dense run (seed 2, 5 brokers,
// ack-before-quorum, 60 s: its violations cluster, and its faults
// crowd the broker rows), checks that no two labels overlap over the
// whole run and with each violation chosen, and returns a screenshot of
// the whole run.
func densePage(t *testing.T, outDir string) []byte {
	res, err := runner.Run(runner.Options{Seed: 2, Brokers: 5, Defects: node.Defects{AckBeforeQuorum: true},
		KeepHistory: true, RecordTrace: true, Observe: true})
	if err != nil {
		t.Fatal(err)
	}
	page := savePage(t, res, filepath.Join(outDir, "timeline-dense.html"))
	b := open(t, page)
	checkLabelsApart(t, b, "the dense run")
	shot := b.screenshot(t)
	var n int
	b.eval(t, `document.querySelectorAll('li.finding h3 a').length`, &n)
	for i := 0; i < n; i++ {
		b.eval(t, fmt.Sprintf(`document.querySelectorAll('li.finding h3 a')[%d].click(), 0`, i), nil)
		checkLabelsApart(t, b, fmt.Sprintf("the dense run, violation %d chosen", i))
	}
	if problems := b.problems(); len(problems) > 0 {
		t.Fatalf("page %s: %d problems:\n%s", page, len(problems), strings.Join(problems, "\n"))
	}
	return shot
}

// savePage writes res's page to path and returns path.
func savePage(t *testing.T, res *runner.Result, path string) string {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := errors.Join(Write(f, res), f.Close()); err != nil {
		t.Fatal(err)
	}
	return path
}

// label is one text of the plot as drawn: its box, its text, the fault
// it labels (0: none) and that fault's marks' boxes and tooltip.
type label struct {
	Text    string
	Box     box
	Fault   int
	Marks   []box
	Tooltip string
}

// checkLabelsApart: no two texts of the plot overlap (the issue's "op
// 2…6004" and "…window 8.901 s)disklatency…"), and a fault's text fits
// the mark it labels or is cut with "…", its whole label in the mark's
// tooltip.
func checkLabelsApart(t *testing.T, b *browser, when string) {
	t.Helper()
	var ls []label
	b.eval(t, `[...document.querySelectorAll('#plot-svg text')].map(e => {
		const r = e.getBoundingClientRect(), of = +(e.dataset.labelOf || 0);
		const marks = of ? [...document.querySelectorAll('g[data-fault="' + of + '"]')] : [];
		return {Text: e.textContent, Box: {X: r.left, Y: r.top, R: r.right, B: r.bottom}, Fault: of,
			Marks: marks.filter(g => g.querySelector('rect')).map(g => { const q = g.querySelector('rect').getBoundingClientRect(); return {X: q.left, Y: q.top, R: q.right, B: q.bottom}; }),
			Tooltip: marks.length ? marks[0].querySelector('title').textContent : ''};
	})`, &ls)
	if len(ls) < 10 {
		t.Fatalf("%s: %d texts in the plot", when, len(ls))
	}
	const slack = 0.5 // px: anti-aliasing
	for i := range ls {
		for j := i + 1; j < len(ls); j++ {
			a, c := ls[i].Box, ls[j].Box
			if a.X < c.R-slack && c.X < a.R-slack && a.Y < c.B-slack && c.Y < a.B-slack {
				t.Errorf("%s: labels %q %+v and %q %+v overlap", when, ls[i].Text, a, ls[j].Text, c)
			}
		}
	}
	for _, l := range ls {
		if l.Fault == 0 {
			continue
		}
		if cut := strings.HasSuffix(l.Text, "…"); cut && !strings.HasPrefix(l.Tooltip, strings.TrimSuffix(l.Text, "…")) {
			t.Errorf("%s: fault label %q is cut, but its mark's tooltip is %q", when, l.Text, l.Tooltip)
		}
		inside := len(l.Marks) == 0 // an instant's label has its row to the next mark
		for _, m := range l.Marks {
			mid := (l.Box.Y + l.Box.B) / 2 // the text's line box is taller than a thin bar: its middle must be on it
			inside = inside || (l.Box.X >= m.X-slack && l.Box.R <= m.R+slack && mid >= m.Y && mid <= m.B)
		}
		if !inside {
			t.Errorf("%s: fault label %q %+v runs out of its marks %+v", when, l.Text, l.Box, l.Marks)
		}
	}
}

// box is an element's bounding box in CSS pixels.
type box struct{ X, Y, R, B float64 }

// firstScreen is what checkFirstScreen reads from the page.
type firstScreen struct {
	Plot, Findings box
	ScrollW        float64
	ScrollH        float64
	Items          []string
	Violating      int
	Text           string
}

// checkFirstScreen: the plot and the violations list fit the first
// screen side by side; each violation is listed with its time in
// seconds (the earliest operation that shows it) or says it has none;
// the violating operations are drawn.
func checkFirstScreen(t *testing.T, b *browser, res *runner.Result, m *Model) {
	var got firstScreen
	b.eval(t, `(() => {
		const r = s => { const e = document.querySelector(s).getBoundingClientRect(); return {X: e.left, Y: e.top, R: e.right, B: e.bottom}; };
		return {Plot: r('#plot'), Findings: r('#findings'), ScrollW: document.documentElement.scrollWidth, ScrollH: document.documentElement.scrollHeight,
			Items: [...document.querySelectorAll('li.finding')].map(e => e.innerText),
			Violating: document.querySelectorAll('g.violating').length,
			Text: document.querySelector('h1').innerText};
	})()`, &got)
	p, f := got.Plot, got.Findings
	if p.X < 0 || p.Y < 0 || p.R > screenW || p.B > screenH || p.R-p.X < 700 || p.B-p.Y < 500 || got.ScrollH > screenH || got.ScrollW > screenW {
		t.Errorf("the plot %+v is not on the first %dx%d screen (page %gx%g)", p, screenW, screenH, got.ScrollW, got.ScrollH)
	}
	if f.X < p.R || f.R > screenW || f.Y >= p.B || f.B <= p.Y || f.Y > p.Y+60 {
		t.Errorf("the violations list %+v is not beside the plot %+v", f, p)
	}
	if !strings.Contains(got.Text, "FAIL") || len(got.Items) != len(m.Findings) || len(m.Findings) == 0 {
		t.Fatalf("header %q, %d violations listed; want FAIL and the run's %d violated invariants", got.Text, len(got.Items), len(m.Findings))
	}
	for i, item := range got.Items {
		f := m.Findings[i]
		if !strings.Contains(item, f.Invariant) || !strings.Contains(item, "at "+secs(f.AtNs)+",") {
			t.Errorf("violation %d lists %q; want %s at %s (its earliest finding's time)", i, item, f.Invariant, secs(f.AtNs))
		}
	}
	if got.Violating < 1 {
		t.Fatalf("%d violating operations drawn", got.Violating)
	}
}

// view is the plot's time range and axis as the page shows them.
type view struct {
	From, To float64
	End      float64
	Ticks    []string
	Mode     string
	Ops      int
}

func (b *browser) view(t *testing.T) view {
	var v view
	b.eval(t, `(() => { const p = document.getElementById('plot');
		return {From: +p.dataset.fromNs, To: +p.dataset.toNs, Mode: p.dataset.mode, Ops: +p.dataset.opsDrawn,
			End: JSON.parse(document.getElementById('timeline-data').textContent).endNs,
			Ticks: [...document.querySelectorAll('.tick-label')].map(e => e.textContent)}; })()`, &v)
	return v
}

// checkZoomAndPan: the wheel narrows the range around the cursor and
// relabels the axis; the arrow key and a drag move it by the same span;
// the + key zooms; reset (button, then the 0 key) shows the whole run.
func checkZoomAndPan(t *testing.T, b *browser) {
	full := b.view(t)
	if full.From != 0 || full.To != full.End || full.Mode != "bins" {
		t.Fatalf("the page opens on %+v; want the whole run, its operations in bins", full)
	}
	checkTicks(t, full)
	p := b.plotBox(t)
	cx, cy := p.X+(p.R-p.X)*0.4, p.Y+(p.B-p.Y)*0.5
	b.run(t, input.DispatchMouseEvent(input.MouseMoved, cx, cy), input.DispatchMouseEvent(input.MouseWheel, cx, cy).WithDeltaX(0).WithDeltaY(-600))
	zoomed := b.view(t)
	if span(zoomed) > 0.6*span(full) || zoomed.From <= 0 || strings.Join(zoomed.Ticks, ",") == strings.Join(full.Ticks, ",") {
		t.Fatalf("the wheel left the axis at %+v (from %+v)", zoomed, full)
	}
	checkTicks(t, zoomed)
	b.run(t, chromedp.KeyEvent(kb.ArrowRight))
	panned := b.view(t)
	if !near(span(panned), span(zoomed)) || !near(panned.From-zoomed.From, 0.2*span(zoomed)) {
		t.Fatalf("the right arrow moved %+v to %+v; want the same span 20%% later", zoomed, panned)
	}
	b.run(t, input.DispatchMouseEvent(input.MousePressed, cx, cy).WithButton(input.Left).WithClickCount(1),
		input.DispatchMouseEvent(input.MouseMoved, cx-150, cy).WithButton(input.Left).WithButtons(1),
		input.DispatchMouseEvent(input.MouseReleased, cx-150, cy).WithButton(input.Left).WithClickCount(1))
	dragged := b.view(t)
	if !near(span(dragged), span(panned)) || dragged.From <= panned.From {
		t.Fatalf("dragging left moved %+v to %+v; want the same span later", panned, dragged)
	}
	b.run(t, chromedp.Click("#reset", chromedp.ByID))
	if r := b.view(t); r.From != 0 || r.To != full.End {
		t.Fatalf("reset left the axis at %+v", r)
	}
	b.run(t, chromedp.KeyEvent("+"))
	if z := b.view(t); !near(span(z), span(full)/1.5) {
		t.Fatalf("the + key zoomed to %+v; want two thirds of %+v", z, full)
	}
	b.run(t, chromedp.KeyEvent("0"))
	if r := b.view(t); r.From != 0 || r.To != full.End {
		t.Fatalf("the 0 key left the axis at %+v", r)
	}
}

func span(v view) float64 { return v.To - v.From }

// near is equality up to a rounded nanosecond per step and 0.1%.
func near(a, b float64) bool { return math.Abs(a-b) <= 2+1e-3*math.Max(math.Abs(a), math.Abs(b)) }

// checkTicks: the axis is labelled in seconds, each label within the view.
func checkTicks(t *testing.T, v view) {
	if len(v.Ticks) < 3 {
		t.Fatalf("axis labels %q; want several", v.Ticks)
	}
	for _, l := range v.Ticks {
		var sec float64
		if _, err := fmt.Sscanf(l, "%g s", &sec); err != nil || !strings.HasSuffix(l, " s") || sec*1e9 < v.From-1 || sec*1e9 > v.To+1 {
			t.Fatalf("axis label %q is not a time in seconds within %+v", l, v)
		}
	}
}

// checkViolationChosen: choosing the first violation that names
// operations zooms the plot onto them, draws the operations around them
// one by one, and highlights them.
func checkViolationChosen(t *testing.T, b *browser) {
	var ids []float64
	b.eval(t, `(() => { const d = JSON.parse(document.getElementById('timeline-data').textContent);
		const i = d.findings.findIndex(f => f.length > 0); document.querySelectorAll('li.finding h3 a')[i].click();
		return d.findings[i]; })()`, &ids)
	var spans [][2]float64
	b.eval(t, `(() => { const d = JSON.parse(document.getElementById('timeline-data').textContent);
		return `+jsArray(ids)+`.map(id => { const o = d.bad.find(b => b.op === id); return [o.f, o.t]; }); })()`, &spans)
	v := b.view(t)
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range spans {
		if s[0] < v.From || s[1] > v.To {
			t.Errorf("the chosen violation's operation %v is outside the view %+v", s, v)
		}
		lo, hi = math.Min(lo, s[0]), math.Max(hi, s[1])
	}
	if span(v) > (hi-lo)*1.5+2e8+2 {
		t.Errorf("the view %+v is wider than the violation's operations (%g-%g ns) with a margin", v, lo, hi)
	}
	var selected int
	b.eval(t, `document.querySelectorAll('g.violating.selected').length`, &selected)
	if selected != len(ids) || v.Mode != "ops" || v.Ops <= len(ids) {
		t.Fatalf("choosing the violation of ops %v: %d highlighted, view %+v; want them all, among operations drawn one by one", ids, selected, v)
	}
}

func jsArray(ids []float64) string {
	b, _ := json.Marshal(ids)
	return string(b)
}

// drawnFault is one fault mark as the page draws it.
type drawnFault struct {
	Label string
	Lane  string
	Y     float64
	LaneY [2]float64
}

// checkFaultLabels: over the whole run, every fault's drawn mark says its
// time in seconds; each broker its label names is a row of the plot; a
// mark on a broker's row is in that row and names that broker; faults
// strike several brokers.
func checkFaultLabels(t *testing.T, b *browser, res *runner.Result) {
	b.run(t, chromedp.Click("#reset", chromedp.ByID))
	var rows []string
	b.eval(t, `[...document.querySelectorAll('text.lane-name')].map(e => e.textContent)`, &rows)
	var faults []drawnFault
	b.eval(t, `[...document.querySelectorAll('[data-fault]')].filter(e => e.tagName === 'g').map(e => {
		const r = e.getBoundingClientRect(), lane = document.querySelector('rect.lane-bg[data-lane="' + e.dataset.lane + '"]').getBoundingClientRect();
		return {Label: e.querySelector('title').textContent, Lane: e.dataset.lane, Y: (r.top + r.bottom) / 2, LaneY: [lane.top, lane.bottom]};
	})`, &faults)
	isRow := map[string]bool{}
	for _, r := range rows {
		isRow[r] = true
	}
	brokers := map[string]bool{}
	secsRe := regexp.MustCompile(` at \d+\.\d{3} s\b`)
	for _, f := range faults {
		label, _, _ := strings.Cut(f.Label, "\n")
		if !secsRe.MatchString(label) || strings.Contains(label, "_ns=") || strings.Contains(label, "node=") {
			t.Errorf("fault label %q does not say its time in seconds and its nodes by their rows", label)
		}
		named := brokerRef.FindAllString(label, -1)
		for _, n := range named {
			if !isRow[n] {
				t.Errorf("fault %q names %s, which is not a row (rows %q)", label, n, rows)
			}
		}
		if strings.HasPrefix(f.Lane, "broker ") {
			brokers[f.Lane] = true
			if !slices.Contains(named, f.Lane) {
				t.Errorf("fault %q is drawn on %s's row but does not name it", label, f.Lane)
			}
		}
		if f.Y < f.LaneY[0] || f.Y > f.LaneY[1] {
			t.Errorf("fault %q (lane %s) is drawn at y %g, outside its row %v", label, f.Lane, f.Y, f.LaneY)
		}
	}
	if len(faults) < 2 || len(brokers) < 2 {
		t.Fatalf("%d fault marks on broker rows %v; the run needs faults on several brokers", len(faults), brokers)
	}
}

// browser is one headless Chromium on one page, recording every console
// error, exception and request beyond the page.
type browser struct {
	ctx  context.Context
	mu   sync.Mutex
	errs []string
}

func (b *browser) problems() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errs...)
}

func (b *browser) run(t *testing.T, actions ...chromedp.Action) {
	t.Helper()
	if err := chromedp.Run(b.ctx, actions...); err != nil {
		t.Fatalf("chromium: %v", err)
	}
}

func (b *browser) eval(t *testing.T, js string, out any) {
	t.Helper()
	b.run(t, chromedp.Evaluate(js, out))
}

func (b *browser) plotBox(t *testing.T) box {
	var p box
	b.eval(t, `(() => { const e = document.getElementById('plot').getBoundingClientRect(); return {X: e.left, Y: e.top, R: e.right, B: e.bottom}; })()`, &p)
	return p
}

func (b *browser) screenshot(t *testing.T) []byte {
	var shot []byte
	b.run(t, chromedp.CaptureScreenshot(&shot))
	return shot
}

// open starts a fresh headless Chromium with a 1280x800 viewport on page.
func open(t *testing.T, page string) *browser {
	profile := freshProfile(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromiumPath), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-quic", true), chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true), chromedp.Flag("disable-sync", true),
		chromedp.UserDataDir(profile), chromedp.WindowSize(screenW, screenH),
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancel = context.WithTimeout(ctx, 120*time.Second)
	t.Cleanup(cancel)
	b := &browser{ctx: ctx}
	url := "file://" + page
	chromedp.ListenTarget(ctx, func(ev any) {
		b.mu.Lock()
		defer b.mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError || e.Type == runtime.APITypeWarning {
				b.errs = append(b.errs, fmt.Sprintf("console %s: %v", e.Type, e.Args))
			}
		case *runtime.EventExceptionThrown:
			b.errs = append(b.errs, "exception: "+e.ExceptionDetails.Error())
		case *log.EventEntryAdded:
			if e.Entry.Level == log.LevelError {
				b.errs = append(b.errs, "log error: "+e.Entry.Text)
			}
		case *network.EventRequestWillBeSent:
			if e.Request.URL != url && !strings.HasPrefix(e.Request.URL, "data:") {
				b.errs = append(b.errs, "request outside the page: "+e.Request.URL)
			}
		}
	})
	b.run(t, log.Enable(), network.Enable(), runtime.Enable(), chromedp.EmulateViewport(screenW, screenH),
		chromedp.Navigate(url), chromedp.WaitVisible("#findings", chromedp.ByID), chromedp.WaitReady("text.lane-name", chromedp.ByQuery))
	return b
}

// freshProfile is an empty Chromium profile directory, removed after the
// test; Chromium's helper processes may still write to it for a moment
// after the browser is gone, so removal is retried for up to 5 s.
func freshProfile(t *testing.T) string {
	dir, err := os.MkdirTemp("", "felixsim-chromium-profile-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		var err error
		for i := 0; i < 50; i++ {
			if err = os.RemoveAll(dir); err == nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		t.Logf("chromium profile %s not removed: %v", dir, err)
	})
	return dir
}
