package faultplan

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"

	"github.com/felixsim/felixsim/sim/world"
)

// planHeader opens every plan file; the version changes if the format does.
// v2 names each fault's fields by meaning and unit (see faultFields); v1
// (planHeaderV1) overloaded value= and dur= by kind and is still read.
// PlanHeaderRun (v3) has v2's grammar; it marks a file that also carries
// its whole run description in `# key: value` lines (sim/artifact
// requires them), which this parser skips like any comment.
const (
	planHeader    = "felixsim-plan v2"
	planHeaderV1  = "felixsim-plan v1"
	PlanHeaderRun = "felixsim-plan v3"
)

// PlanLinesMax caps a parsed plan's lines; longer input is refused.
const PlanLinesMax = 1 << 20

// DurationNsMax caps a plan's fault phase as `felixsim run --duration`
// caps it (10000 h): far beyond any run anyone waits for, far inside the
// nanosecond arithmetic's int64. A plan line past it is refused.
const DurationNsMax = 10000 * 3600 * 1_000_000_000

// String renders the plan in its file format, which ParsePlan reads back.
func (p *Plan) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nseed %d\nnodes %d\nduration_ns %d\n", planHeader, p.Seed, p.Nodes, p.DurationNs)
	for _, q := range p.Workload {
		fmt.Fprintf(&b, "param %s %d\n", q.Name, q.Value)
	}
	for _, c := range p.Ops {
		fmt.Fprintf(&b, "ops %s\n", c)
	}
	for _, f := range p.Faults {
		b.WriteString("fault ")
		b.WriteString(f.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// ParsePlan reads a plan written by Plan.String. Blank lines and lines
// starting with '#' are skipped. Errors name the line and what was refused.
func ParsePlan(text string) (*Plan, error) {
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 4096), 1<<16)
	p := &Plan{}
	lineNo, header := 0, ""
	seen := map[string]bool{}
	var faultLines []int // the line of each fault, for its refusal
	for sc.Scan() {
		lineNo++
		if lineNo > PlanLinesMax {
			return nil, fmt.Errorf("sim: plan refused: more than %d lines", PlanLinesMax)
		}
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if header == "" {
			if line != planHeader && line != planHeaderV1 && line != PlanHeaderRun {
				return nil, fmt.Errorf("sim: plan line %d: %q refused: want header %q, %q or the older %q", lineNo, line, PlanHeaderRun, planHeader, planHeaderV1)
			}
			header = line
			continue
		}
		if err := p.parseLine(line, header == planHeaderV1, seen); err != nil {
			return nil, fmt.Errorf("sim: plan line %d: %w", lineNo, err)
		}
		if len(faultLines) < len(p.Faults) {
			faultLines = append(faultLines, lineNo)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("sim: plan refused after line %d: %w", lineNo, err)
	}
	if header == "" {
		return nil, fmt.Errorf("sim: plan refused: empty, want header %q", PlanHeaderRun)
	}
	for _, key := range []string{"seed", "nodes", "duration_ns"} {
		if !seen[key] {
			return nil, fmt.Errorf("sim: plan refused: no %s line", key)
		}
	}
	if err := p.validateFaults(faultLines); err != nil {
		return nil, err
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// validateFaults refuses the first fault that is invalid or earlier than
// the one before it, naming its line and its place among the plan's
// faults (counted from 1).
func (p *Plan) validateFaults(lines []int) error {
	var prev int64
	for i, f := range p.Faults {
		if err := f.validate(p.Nodes); err != nil {
			return fmt.Errorf("sim: plan line %d: fault %d of %d: %w", lines[i], i+1, len(p.Faults), err)
		}
		if f.AtNs < prev {
			return fmt.Errorf("sim: plan line %d: fault %d of %d at %d ns refused: before the previous one at %d ns", lines[i], i+1, len(p.Faults), f.AtNs, prev)
		}
		prev = f.AtNs
	}
	return nil
}

func (p *Plan) parseLine(line string, v1 bool, seen map[string]bool) error {
	word, rest, _ := strings.Cut(line, " ")
	fields := strings.Fields(rest)
	switch word {
	case "seed", "nodes", "duration_ns":
		if seen[word] {
			return fmt.Errorf("second %s line refused", word)
		}
		seen[word] = true
		if len(fields) != 1 {
			return fmt.Errorf("%s wants one value, got %d", word, len(fields))
		}
		return p.parseHeaderValue(word, fields[0])
	case "param":
		if len(fields) != 2 {
			return fmt.Errorf("param wants a name and a value, got %q", rest)
		}
		v, err := strconv.ParseInt(fields[1], 10, 64)
		if err != nil {
			return fmt.Errorf("param %s value %q refused: %v", fields[0], fields[1], err)
		}
		p.Workload = append(p.Workload, Param{Name: fields[0], Value: v})
		return nil
	case "ops":
		c, err := parseClientOps(fields)
		if err != nil {
			return err
		}
		p.Ops = append(p.Ops, c)
		return nil
	case "fault":
		f, err := parseFault(fields, v1)
		if err != nil {
			return err
		}
		p.Faults = append(p.Faults, f)
		return nil
	}
	return fmt.Errorf("line kind %q refused: want seed, nodes, duration_ns, param, ops or fault", word)
}

func (p *Plan) parseHeaderValue(word, s string) error {
	var err error
	switch word {
	case "seed":
		p.Seed, err = strconv.ParseUint(s, 10, 64)
	case "nodes":
		p.Nodes, err = strconv.Atoi(s)
		if err == nil && (p.Nodes < 1 || p.Nodes > world.NodesMax) {
			return fmt.Errorf("nodes %d refused: want 1..%d", p.Nodes, world.NodesMax)
		}
	case "duration_ns":
		p.DurationNs, err = strconv.ParseInt(s, 10, 64)
		if err == nil && (p.DurationNs < 0 || p.DurationNs > DurationNsMax) {
			return fmt.Errorf("duration_ns %d refused: want 0..%d (at most 10000h, as --duration)", p.DurationNs, int64(DurationNsMax))
		}
	}
	if err != nil {
		return fmt.Errorf("%s %q refused: %v", word, s, err)
	}
	return nil
}

// ParseFault reads one fault as a plan v2 fault line spells it after the
// word "fault": at_ns=, kind=, and the kind's fields (see FaultEvent.String).
func ParseFault(text string) (FaultEvent, error) {
	return parseFault(strings.Fields(text), false)
}

// parseFault reads a fault's key=value fields: plan v2's (see
// FaultEvent.String), or with v1 set plan v1's, whose value= and dur= go to
// the kind's field in that column.
func parseFault(fields []string, v1 bool) (FaultEvent, error) {
	var f FaultEvent
	atKey := "at_ns"
	if v1 {
		atKey = "at"
	}
	seen := map[string]bool{}
	kindText := ""
	for _, fld := range fields {
		key, val, ok := strings.Cut(fld, "=")
		if !ok {
			return f, fmt.Errorf("fault field %q refused: want key=value", fld)
		}
		if seen[key] {
			return f, fmt.Errorf("fault field %q refused: given twice", key)
		}
		seen[key] = true
		if key == "kind" {
			kindText = val
		}
	}
	if !seen[atKey] || !seen["kind"] {
		return f, fmt.Errorf("fault %q refused: %s= and kind= are required", strings.Join(fields, " "), atKey)
	}
	var err error
	if f.Kind, err = ParseFaultKind(kindText); err != nil {
		return f, err
	}
	for _, fld := range fields {
		key, val, _ := strings.Cut(fld, "=")
		var err error
		switch key {
		case "kind":
		case atKey:
			f.AtNs, err = strconv.ParseInt(val, 10, 64)
		case "role":
			f.Role = val
		default:
			err = f.setField(key, val, v1)
		}
		if err != nil {
			return f, fmt.Errorf("fault field %s=%q refused: %w", key, val, err)
		}
	}
	return f, nil
}

// setField sets the field of f's kind that key names (in plan v1, the
// field stored in that column). A v1 column the kind has no field in may
// only hold zero.
func (f *FaultEvent) setField(key, val string, v1 bool) error {
	for _, id := range faultKinds[f.Kind].fields {
		fld := &faultFields[id]
		if (!v1 && fld.key == key) || (v1 && fld.col != colNone && v1ColumnKeys[fld.col] == key) {
			v, err := fld.unit.parse(val)
			if err != nil {
				return err
			}
			fld.set(f, v)
			return nil
		}
	}
	if v1 {
		for c := colNode; c < v1ColumnCount; c++ {
			if v1ColumnKeys[c] == key {
				if v, err := strconv.ParseInt(val, 0, 64); err != nil || v != 0 {
					return fmt.Errorf("kind %s has no field in v1 column %s", f.Kind, key)
				}
				return nil
			}
		}
	}
	return fmt.Errorf("kind %s takes %s", f.Kind, strings.Join(f.Kind.keys(v1), ", "))
}

// keys lists the fault keys kind k takes in plan v2 (or v1).
func (k FaultKind) keys(v1 bool) []string {
	if v1 {
		return []string{"at", "kind", "node", "peer", "mask", "value", "dur", "role"}
	}
	out := []string{"at_ns", "kind"}
	for _, id := range faultKinds[k].fields {
		out = append(out, faultFields[id].key)
	}
	if k.targetsNode() {
		out = append(out, "role")
	}
	return out
}
