package sim

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"
)

// planHeader opens every plan file; the version changes if the format does.
const planHeader = "felixsim-plan v1"

// PlanLinesMax caps a parsed plan's lines; longer input is refused.
const PlanLinesMax = 1 << 20

// String renders the plan in its file format, which ParsePlan reads back.
func (p *Plan) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nseed %d\nnodes %d\nduration_ns %d\n", planHeader, p.Seed, p.Nodes, p.DurationNs)
	for _, q := range p.Workload {
		fmt.Fprintf(&b, "param %s %d\n", q.Name, q.Value)
	}
	for _, f := range p.Faults {
		b.WriteString("fault ")
		b.WriteString(f.String())
		b.WriteByte('\n')
	}
	return b.String()
}

// String renders one fault as key=value fields; zero fields are omitted.
func (f FaultEvent) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "at=%d kind=%s", f.AtNs, f.Kind)
	if f.Node != 0 {
		fmt.Fprintf(&b, " node=%d", f.Node)
	}
	if f.Peer != 0 {
		fmt.Fprintf(&b, " peer=%d", f.Peer)
	}
	if f.Mask != 0 {
		fmt.Fprintf(&b, " mask=%#x", f.Mask)
	}
	if f.Value != 0 {
		fmt.Fprintf(&b, " value=%d", f.Value)
	}
	if f.DurNs != 0 {
		fmt.Fprintf(&b, " dur=%d", f.DurNs)
	}
	if f.Role != "" {
		fmt.Fprintf(&b, " role=%s", f.Role)
	}
	return b.String()
}

// ParsePlan reads a plan written by Plan.String. Blank lines and lines
// starting with '#' are skipped. Errors name the line and what was refused.
func ParsePlan(text string) (*Plan, error) {
	sc := bufio.NewScanner(strings.NewReader(text))
	sc.Buffer(make([]byte, 0, 4096), 1<<16)
	p := &Plan{}
	lineNo, sawHeader := 0, false
	seen := map[string]bool{}
	for sc.Scan() {
		lineNo++
		if lineNo > PlanLinesMax {
			return nil, fmt.Errorf("sim: plan refused: more than %d lines", PlanLinesMax)
		}
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if !sawHeader {
			if line != planHeader {
				return nil, fmt.Errorf("sim: plan line %d: %q refused: want header %q", lineNo, line, planHeader)
			}
			sawHeader = true
			continue
		}
		if err := p.parseLine(line, seen); err != nil {
			return nil, fmt.Errorf("sim: plan line %d: %w", lineNo, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("sim: plan refused after line %d: %w", lineNo, err)
	}
	if !sawHeader {
		return nil, fmt.Errorf("sim: plan refused: empty, want header %q", planHeader)
	}
	for _, key := range []string{"seed", "nodes", "duration_ns"} {
		if !seen[key] {
			return nil, fmt.Errorf("sim: plan refused: no %s line", key)
		}
	}
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

func (p *Plan) parseLine(line string, seen map[string]bool) error {
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
	case "fault":
		f, err := parseFault(fields)
		if err != nil {
			return err
		}
		p.Faults = append(p.Faults, f)
		return nil
	}
	return fmt.Errorf("line kind %q refused: want seed, nodes, duration_ns, param or fault", word)
}

func (p *Plan) parseHeaderValue(word, s string) error {
	var err error
	switch word {
	case "seed":
		p.Seed, err = strconv.ParseUint(s, 10, 64)
	case "nodes":
		p.Nodes, err = strconv.Atoi(s)
	case "duration_ns":
		p.DurationNs, err = strconv.ParseInt(s, 10, 64)
	}
	if err != nil {
		return fmt.Errorf("%s %q refused: %v", word, s, err)
	}
	return nil
}

func parseFault(fields []string) (FaultEvent, error) {
	var f FaultEvent
	seen := map[string]bool{}
	for _, fld := range fields {
		key, val, ok := strings.Cut(fld, "=")
		if !ok {
			return f, fmt.Errorf("fault field %q refused: want key=value", fld)
		}
		if seen[key] {
			return f, fmt.Errorf("fault field %q refused: given twice", key)
		}
		seen[key] = true
		var err error
		switch key {
		case "at":
			f.AtNs, err = strconv.ParseInt(val, 10, 64)
		case "kind":
			f.Kind, err = ParseFaultKind(val)
		case "node":
			f.Node, err = strconv.Atoi(val)
		case "peer":
			f.Peer, err = strconv.Atoi(val)
		case "mask":
			f.Mask, err = strconv.ParseUint(val, 0, 64)
		case "value":
			f.Value, err = strconv.ParseInt(val, 10, 64)
		case "dur":
			f.DurNs, err = strconv.ParseInt(val, 10, 64)
		case "role":
			f.Role = val
		default:
			return f, fmt.Errorf("fault field %q refused: want at, kind, node, peer, mask, value, dur or role", key)
		}
		if err != nil {
			return f, fmt.Errorf("fault field %s=%q refused: %v", key, val, err)
		}
	}
	if !seen["at"] || !seen["kind"] {
		return f, fmt.Errorf("fault %q refused: at= and kind= are required", strings.Join(fields, " "))
	}
	return f, nil
}
