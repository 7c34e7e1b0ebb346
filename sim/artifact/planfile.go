package artifact

import (
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/felixsim/felixsim/sim"
	"github.com/felixsim/felixsim/sim/runner"
)

// Meta is what a saved plan carries besides the plan itself, as
// `# key: value` comment lines that sim.ParsePlan skips (so the plan stays
// a plan any felixsim reads, and an old plan without them still loads).
type Meta struct {
	// Revision is the felixsim VCS revision that drew the plan ("unknown"
	// when the binary was built without VCS stamping).
	Revision string
	// TraceHash is the trace hash the plan produced; HasTraceHash is false
	// for a plan saved without one.
	TraceHash    uint64
	HasTraceHash bool
	// Brokers, Streams and Shards are the run's topology (0: not given).
	Brokers, Streams, Shards int
	// Defects are the planted bugs that were on ("" or "none": none).
	Defects string
}

// Meta keys as the plan file spells them.
const (
	metaRevision  = "felixsim-revision"
	metaTraceHash = "trace-hash"
	metaBrokers   = "brokers"
	metaStreams   = "streams"
	metaShards    = "shards"
	metaDefects   = "defects"
	metaEnd       = "end"
)

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
	o := res.Options
	return Meta{Revision: revision, TraceHash: res.TraceHash, HasTraceHash: true, Brokers: o.Brokers, Streams: o.Streams,
		Shards: int(o.Shards), Defects: o.DefectList()}
}

// WritePlan writes p in its file format with m as comment lines after the
// header, and an end line (`# end: N faults`) so a truncated file is
// caught even where it would still parse.
func WritePlan(w io.Writer, p *sim.Plan, m Meta) error {
	text := p.String()
	header, body, ok := strings.Cut(text, "\n")
	if !ok {
		return fmt.Errorf("artifact: plan text %.40q has no header line", text)
	}
	var b strings.Builder
	b.WriteString(header + "\n")
	rev := m.Revision
	if rev == "" {
		rev = "unknown"
	}
	fmt.Fprintf(&b, "# %s: %s\n", metaRevision, rev)
	if m.HasTraceHash {
		fmt.Fprintf(&b, "# %s: %016x\n", metaTraceHash, m.TraceHash)
	}
	for _, kv := range []struct {
		k string
		v int
	}{{metaBrokers, m.Brokers}, {metaStreams, m.Streams}, {metaShards, m.Shards}} {
		if kv.v > 0 {
			fmt.Fprintf(&b, "# %s: %d\n", kv.k, kv.v)
		}
	}
	if m.Defects != "" {
		fmt.Fprintf(&b, "# %s: %s\n", metaDefects, m.Defects)
	}
	b.WriteString(body)
	fmt.Fprintf(&b, "# %s: %d faults\n", metaEnd, len(p.Faults))
	_, err := io.WriteString(w, b.String())
	return err
}

// ReadPlan reads a plan file: the plan (sim.ParsePlan) and its meta lines.
// Every refusal names the file and, where there is one, the line.
func ReadPlan(path string) (*sim.Plan, Meta, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, Meta{}, fmt.Errorf("plan %w", err)
	}
	p, m, err := ParsePlanFile(string(text))
	if err != nil {
		return nil, Meta{}, fmt.Errorf("%s: %w", path, err)
	}
	return p, m, nil
}

// ParsePlanFile parses a plan file's text: the plan and its meta lines.
// A file that carries a revision line was written by WritePlan and must
// end with its end line, whose fault count must match.
func ParsePlanFile(text string) (*sim.Plan, Meta, error) {
	p, err := sim.ParsePlan(text)
	if err != nil {
		return nil, Meta{}, err
	}
	m, endLine, endFaults, err := parseMeta(text)
	if err != nil {
		return nil, Meta{}, err
	}
	if m.Revision == "" {
		return p, m, nil // an older plan: no meta, no end line
	}
	if endLine == 0 {
		return nil, Meta{}, fmt.Errorf("plan refused: truncated: no %q line at its end", "# end: N faults")
	}
	if endFaults != len(p.Faults) {
		return nil, Meta{}, fmt.Errorf("plan line %d refused: the end line counts %d faults, the plan holds %d", endLine, endFaults, len(p.Faults))
	}
	return p, m, nil
}

// parseMeta reads the `# key: value` lines; other comments are free text.
// It returns the end line's number (0 if absent; it must be the last
// non-blank line) and its fault count.
func parseMeta(text string) (m Meta, endLine, endFaults int, err error) {
	lines := strings.Split(text, "\n")
	seen := map[string]bool{}
	for i, raw := range lines {
		line := strings.TrimSpace(raw)
		if endLine != 0 && line != "" {
			return m, 0, 0, fmt.Errorf("plan line %d refused: after the end line (line %d)", i+1, endLine)
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
			return m, 0, 0, fmt.Errorf("plan line %d refused: second %q line", i+1, key)
		}
		seen[key] = true
		if len(seen) > PlanMetaLinesMax {
			return m, 0, 0, fmt.Errorf("plan line %d refused: more than %d meta lines", i+1, PlanMetaLinesMax)
		}
		if key == metaEnd {
			n, ferr := fmt.Sscanf(val, "%d faults", &endFaults)
			if ferr != nil || n != 1 || endFaults < 0 || val != fmt.Sprintf("%d faults", endFaults) {
				return m, 0, 0, fmt.Errorf("plan line %d: end %q refused: want \"N faults\"", i+1, val)
			}
			endLine = i + 1
			continue
		}
		if err := m.set(key, strings.TrimSpace(val)); err != nil {
			return m, 0, 0, fmt.Errorf("plan line %d: %w", i+1, err)
		}
	}
	return m, endLine, endFaults, nil
}

func isMetaKey(k string) bool {
	switch k {
	case metaRevision, metaTraceHash, metaBrokers, metaStreams, metaShards, metaDefects, metaEnd:
		return true
	}
	return false
}

// set stores one meta value, refusing one that does not parse.
func (m *Meta) set(key, val string) error {
	switch key {
	case metaRevision:
		if val == "" || strings.ContainsAny(val, " \t") {
			return fmt.Errorf("%s %q refused: want one word", key, val)
		}
		m.Revision = val
	case metaTraceHash:
		h, err := strconv.ParseUint(val, 16, 64)
		if err != nil || len(val) != 16 {
			return fmt.Errorf("%s %q refused: want 16 hex digits", key, val)
		}
		m.TraceHash, m.HasTraceHash = h, true
	case metaBrokers, metaStreams, metaShards:
		n, err := strconv.Atoi(val)
		if err != nil || n <= 0 || n > 1<<16 {
			return fmt.Errorf("%s %q refused: want a positive count", key, val)
		}
		switch key {
		case metaBrokers:
			m.Brokers = n
		case metaStreams:
			m.Streams = n
		default:
			m.Shards = n
		}
	case metaDefects:
		if _, err := runner.ParseDefects(val); err != nil {
			return fmt.Errorf("%s %q refused: %w", key, val, err)
		}
		m.Defects = val
	}
	return nil
}
