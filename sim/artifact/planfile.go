package artifact

import (
	"fmt"
	"io"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/felixsim/felixsim/sim/faultplan"
	"github.com/felixsim/felixsim/sim/runner"
)

// Meta is what a saved plan carries besides the world's plan: the run
// description (every option that decides the run's outcome, see
// runner.Options.Settings, that the plan's own lines do not hold), the
// felixsim revision that drew it and the trace hash it produced. They are
// `# key: value` lines that faultplan.ParsePlan skips as comments, so the plan
// stays a plan any felixsim reads.
//
// A file written now has header faultplan.PlanHeaderRun (v3) and must carry
// every key but the trace hash (a plan never run, such as a shrink
// candidate, has none), and an end line that counts its faults and its
// lines. An older file (v1 or v2) loads with what it has: zero fields
// are "not recorded" and the command's own options fill them in.
type Meta struct {
	// Format is the plan format's version from the header: 1, 2 or 3.
	Format int
	// Revision is the felixsim VCS revision that drew the plan ("unknown"
	// when the binary was built without VCS stamping).
	Revision string
	// TraceHash is the trace hash the plan produced; HasTraceHash is false
	// for a plan saved without one.
	TraceHash    uint64
	HasTraceHash bool
	// Brokers, Streams and Shards are the run's topology (0: not recorded).
	Brokers, Streams, Shards int
	// Defects are the planted bugs that were on ("none": none; "": not
	// recorded).
	Defects string
	// Faults is the fault kinds the run drew from, as runner.ParseFaults
	// reads them ("": not recorded).
	Faults string
	// FaultGapNs, LivenessBudgetNs, QuiesceBudgetNs and
	// ChangeLivenessBudgetNs are the run's runner.Options of those names
	// (0: not recorded).
	FaultGapNs, LivenessBudgetNs, QuiesceBudgetNs, ChangeLivenessBudgetNs int64
	// ValidateTrace says whether the run validated its abstract trace
	// against the model (an older plan did: `felixsim run`'s default).
	ValidateTrace bool
	// LinearizableStepsMax is the run's linearizability search budget
	// per scope (0: properties' default).
	LinearizableStepsMax int
}

// Meta keys as the plan file spells them.
const (
	metaRevision     = "felixsim-revision"
	metaTraceHash    = "trace-hash"
	metaBrokers      = "brokers"
	metaStreams      = "streams"
	metaShards       = "shards"
	metaDefects      = "defects"
	metaFaults       = "faults"
	metaFaultGap     = "fault-gap-ns"
	metaLiveness     = "liveness-budget-ns"
	metaQuiesce      = "quiesce-budget-ns"
	metaChange       = "change-liveness-budget-ns"
	metaValidate     = "validate-trace"
	metaLinearizable = "linearizable-steps-max"
	metaEnd          = "end"
)

// metaRequired are the keys a v3 plan file must carry, in the order they
// are written (the trace hash, optional, follows the revision).
var metaRequired = []string{metaRevision, metaBrokers, metaStreams, metaShards, metaDefects, metaFaults,
	metaFaultGap, metaLiveness, metaQuiesce, metaChange, metaValidate, metaLinearizable}

// PlanMetaLinesMax caps the meta lines a plan file may carry.
const PlanMetaLinesMax = 64

// Revision is this binary's VCS revision from its build info (with
// "+dirty" when built from a modified tree), else "unknown".
func Revision() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "unknown"
	}
	if dirty {
		rev += "+dirty"
	}
	return rev
}

func metaOf(res *runner.Result, revision string) Meta {
	m := MetaOf(res.Options, revision)
	m.TraceHash, m.HasTraceHash = res.TraceHash, true
	return m
}

// MetaOf is the run description of options o (defaults filled in), drawn
// by felixsim revision, without a trace hash.
func MetaOf(o runner.Options, revision string) Meta {
	d := o.WithDefaults()
	return Meta{Format: 3, Revision: revision, Brokers: d.Brokers, Streams: d.Streams, Shards: int(d.Shards),
		Defects: d.DefectList(), Faults: d.Faults.String(), FaultGapNs: d.FaultGapMeanNs,
		LivenessBudgetNs: d.LivenessBudgetNs, QuiesceBudgetNs: d.QuiesceBudgetNs, ChangeLivenessBudgetNs: d.ChangeLivenessBudgetNs, ValidateTrace: d.ValidateTrace,
		LinearizableStepsMax: d.LinearizableStepsMax}
}

// WritePlan writes p in the v3 file format: the header, m as comment
// lines, the plan, and an end line (`# end: N faults, M lines`, M counting
// the lines before it) so that a file cut short or missing a line is
// refused even where what is left would parse. m must be a whole run
// description (MetaOf); WritePlan refuses one that is not.
func WritePlan(w io.Writer, p *faultplan.Plan, m Meta) error {
	text := p.String()
	_, body, ok := strings.Cut(text, "\n")
	if !ok {
		return fmt.Errorf("artifact: plan text %.40q has no header line", text)
	}
	if err := m.complete(); err != nil {
		return fmt.Errorf("artifact: plan not written: %w", err)
	}
	var b strings.Builder
	b.WriteString(faultplan.PlanHeaderRun + "\n")
	for _, key := range metaRequired {
		fmt.Fprintf(&b, "# %s: %s\n", key, m.value(key))
		if key == metaRevision && m.HasTraceHash {
			fmt.Fprintf(&b, "# %s: %s\n", metaTraceHash, m.value(metaTraceHash))
		}
	}
	b.WriteString(body)
	fmt.Fprintf(&b, "# %s: %d faults, %d lines\n", metaEnd, len(p.Faults), strings.Count(b.String(), "\n"))
	_, err := io.WriteString(w, b.String())
	return err
}

// complete refuses a run description that lacks a key a v3 file needs.
func (m Meta) complete() error {
	var missing []string
	for _, key := range metaRequired {
		if m.value(key) == "" {
			missing = append(missing, key)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("run description lacks %s", strings.Join(missing, ", "))
	}
	return nil
}

// value renders one meta value as the file spells it ("" when m does not
// record it).
func (m Meta) value(key string) string {
	num := func(v int64) string {
		if v <= 0 {
			return ""
		}
		return strconv.FormatInt(v, 10)
	}
	switch key {
	case metaRevision:
		return m.Revision
	case metaTraceHash:
		return fmt.Sprintf("%016x", m.TraceHash)
	case metaBrokers:
		return num(int64(m.Brokers))
	case metaStreams:
		return num(int64(m.Streams))
	case metaShards:
		return num(int64(m.Shards))
	case metaDefects:
		return m.Defects
	case metaFaults:
		return m.Faults
	case metaFaultGap:
		return num(m.FaultGapNs)
	case metaLiveness:
		return num(m.LivenessBudgetNs)
	case metaQuiesce:
		return num(m.QuiesceBudgetNs)
	case metaChange:
		return num(m.ChangeLivenessBudgetNs)
	case metaValidate:
		return strconv.FormatBool(m.ValidateTrace)
	case metaLinearizable:
		return strconv.Itoa(m.LinearizableStepsMax)
	}
	panic(fmt.Sprintf("artifact: meta key %q unknown", key))
}

// ReadPlan reads a plan file: the plan (faultplan.ParsePlan) and its meta lines.
// Every refusal names the file and, where there is one, the line.
func ReadPlan(path string) (*faultplan.Plan, Meta, error) {
	text, err := ReadInput(path, "plan", PlanBytesMax)
	if err != nil {
		return nil, Meta{}, err
	}
	p, m, err := ParsePlanFile(string(text))
	if err != nil {
		return nil, Meta{}, fmt.Errorf("%s: %w", path, err)
	}
	return p, m, nil
}

// ParsePlanFile parses a plan file's text: the plan and its meta lines.
// A v3 file (WritePlan's) must carry every run-description key and end
// with its end line, whose fault and line counts must match; an older
// file that carries a revision line must end with its end line too.
func ParsePlanFile(text string) (*faultplan.Plan, Meta, error) {
	p, err := faultplan.ParsePlan(text)
	if err != nil {
		return nil, Meta{}, err
	}
	if err := checkParamLines(text); err != nil {
		return nil, Meta{}, err
	}
	m, end, seen, err := parseMeta(text)
	if err != nil {
		return nil, Meta{}, err
	}
	if m.Format < 3 && m.Revision == "" {
		return p, m, nil // an older plan without meta has no end line
	}
	if err := end.check(text, m.Format, len(p.Faults)); err != nil {
		return nil, Meta{}, err
	}
	if m.Format < 3 {
		return p, m, nil
	}
	var missing []string
	for _, key := range metaRequired {
		if !seen[key] {
			missing = append(missing, "# "+key+": ")
		}
	}
	if len(missing) > 0 {
		return nil, Meta{}, fmt.Errorf("plan refused: a %s file must describe its whole run; it has no %q line", faultplan.PlanHeaderRun, strings.Join(missing, "\", \""))
	}
	return p, m, nil
}

// endLine is what a plan file's end line said and where it stood.
type endLine struct {
	line   int // 1-based; 0 when the file has none
	faults int
	lines  int // the lines before it (v3); -1 when the line does not count them (v2)
}

// check refuses a file whose end line is missing, miscounts, or (v3) is
// not the file's last line ended by a newline.
func (e endLine) check(text string, format, faults int) error {
	switch {
	case e.line == 0:
		return fmt.Errorf("plan refused: truncated: no %q line at its end", "# end: N faults, M lines")
	case e.faults != faults:
		return fmt.Errorf("plan line %d refused: the end line counts %d faults, the plan holds %d (a fault line is missing or added)", e.line, e.faults, faults)
	case format < 3:
		return nil
	case e.lines < 0:
		return fmt.Errorf("plan line %d refused: a %s end line must count the lines before it (\"# end: N faults, M lines\")", e.line, faultplan.PlanHeaderRun)
	case e.lines != e.line-1:
		return fmt.Errorf("plan line %d refused: the end line counts %d lines before it, the file has %d (a line is missing or added)", e.line, e.lines, e.line-1)
	case e.line >= len(strings.Split(text, "\n")):
		return fmt.Errorf("plan line %d refused: truncated: the end line is not ended by a newline", e.line)
	}
	return nil
}

// parseMeta reads the header's format and the `# key: value` lines; other
// comments are free text. The end line must be the last non-blank line.
func parseMeta(text string) (m Meta, end endLine, seen map[string]bool, err error) {
	lines := strings.Split(text, "\n")
	seen = map[string]bool{}
	for i, raw := range lines {
		line := strings.TrimSpace(raw)
		if end.line != 0 && line != "" {
			return m, end, seen, fmt.Errorf("plan line %d refused: after the end line (line %d)", i+1, end.line)
		}
		if m.Format == 0 && line != "" && !strings.HasPrefix(line, "#") {
			m.Format = formatOf(line) // faultplan.ParsePlan already refused any other header
			// An older plan's run validated its trace (`felixsim run`'s
			// default); a v3 file says.
			m.ValidateTrace = m.Format < 3
			continue
		}
		rest, ok := strings.CutPrefix(line, "# ")
		if !ok {
			continue
		}
		key, val, ok := strings.Cut(rest, ": ")
		if !ok || !isMetaKey(key) {
			continue
		}
		if seen[key] {
			return m, end, seen, fmt.Errorf("plan line %d refused: second %q line", i+1, key)
		}
		seen[key] = true
		if len(seen) > PlanMetaLinesMax {
			return m, end, seen, fmt.Errorf("plan line %d refused: more than %d meta lines", i+1, PlanMetaLinesMax)
		}
		if key == metaEnd {
			if end, err = parseEnd(val, i+1); err != nil {
				return m, end, seen, err
			}
			continue
		}
		if err := m.set(key, strings.TrimSpace(val)); err != nil {
			return m, end, seen, fmt.Errorf("plan line %d: %w", i+1, err)
		}
	}
	return m, end, seen, nil
}

// formatOf is a plan header's format version.
func formatOf(header string) int {
	switch header {
	case faultplan.PlanHeaderRun:
		return 3
	case "felixsim-plan v1":
		return 1
	}
	return 2
}

// parseEnd reads an end line's value: "N faults" (v2) or "N faults, M lines".
func parseEnd(val string, line int) (endLine, error) {
	e := endLine{line: line, lines: -1}
	faults, lines, hasLines := strings.Cut(val, ", ")
	bad := func() (endLine, error) {
		return endLine{}, fmt.Errorf("plan line %d: end %q refused: want \"N faults, M lines\"", line, val)
	}
	n, ok := countOf(faults, " faults")
	if !ok {
		return bad()
	}
	e.faults = n
	if hasLines {
		if e.lines, ok = countOf(lines, " lines"); !ok {
			return bad()
		}
	}
	return e, nil
}

// countOf reads "N"+unit with N a plain non-negative decimal.
func countOf(s, unit string) (int, bool) {
	num, ok := strings.CutSuffix(s, unit)
	if !ok || num == "" || len(num) > 9 || strings.Trim(num, "0123456789") != "" || (len(num) > 1 && num[0] == '0') {
		return 0, false
	}
	n, err := strconv.Atoi(num)
	return n, err == nil
}

func isMetaKey(k string) bool {
	if k == metaTraceHash || k == metaEnd {
		return true
	}
	for _, r := range metaRequired {
		if k == r {
			return true
		}
	}
	return false
}

// set stores one meta value, refusing one that does not parse.
func (m *Meta) set(key, val string) error {
	refuse := func(want string) error { return fmt.Errorf("%s %q refused: want %s", key, val, want) }
	count := func(max int64) (int64, error) {
		n, err := strconv.ParseInt(val, 10, 64)
		if err != nil || n <= 0 || n > max || strconv.FormatInt(n, 10) != val {
			return 0, refuse(fmt.Sprintf("a positive count up to %d", max))
		}
		return n, nil
	}
	var err error
	var n int64
	switch key {
	case metaRevision:
		if val == "" || strings.ContainsAny(val, " \t") {
			return refuse("one word")
		}
		m.Revision = val
	case metaTraceHash:
		h, perr := strconv.ParseUint(val, 16, 64)
		if perr != nil || len(val) != 16 {
			return refuse("16 hex digits")
		}
		m.TraceHash, m.HasTraceHash = h, true
	case metaBrokers, metaStreams, metaShards:
		n, err = count(map[string]int64{metaBrokers: runner.BrokersMax, metaStreams: runner.StreamsMax, metaShards: runner.ShardsMax}[key])
		*map[string]*int{metaBrokers: &m.Brokers, metaStreams: &m.Streams, metaShards: &m.Shards}[key] = int(n)
	case metaDefects:
		d, derr := runner.ParseDefects(val)
		if derr != nil {
			return fmt.Errorf("%s %q refused: %w", key, val, derr)
		}
		m.Defects = (runner.Options{Defects: d}).DefectList()
	case metaFaults:
		f, ferr := runner.ParseFaults(val)
		if ferr != nil {
			return fmt.Errorf("%s %q refused: %w", key, val, ferr)
		}
		m.Faults = f.String()
	case metaFaultGap, metaLiveness, metaQuiesce, metaChange:
		n, err = count(runner.DurationNsMax)
		*map[string]*int64{metaFaultGap: &m.FaultGapNs, metaLiveness: &m.LivenessBudgetNs, metaQuiesce: &m.QuiesceBudgetNs,
			metaChange: &m.ChangeLivenessBudgetNs}[key] = n
	case metaValidate:
		b, berr := strconv.ParseBool(val)
		if berr != nil || (val != "true" && val != "false") {
			return refuse("true or false")
		}
		m.ValidateTrace = b
	case metaLinearizable:
		v, lerr := strconv.Atoi(val)
		if lerr != nil || v < 0 || v > 1<<30 || strconv.Itoa(v) != val {
			return refuse("0 (the default) or a positive step count")
		}
		m.LinearizableStepsMax = v
	}
	return err
}
