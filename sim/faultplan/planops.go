package faultplan

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// ClientOps restricts one workload client of a plan to some of its
// operations, so that a shrunk plan can replay a smaller workload. A
// client's operations are numbered from 0 in the order the client draws
// them (its slots); a re-sent write and a consumer-group ack follow from
// an earlier operation and are not slots. Each slot draws from its own
// generator, keyed by the client and the slot's number, and a skipped
// slot is still drawn (the client's tags advance as in the full workload)
// but not invoked, so a kept slot asks for what it asked in the full one. A plan with no ClientOps for a client keeps all its operations.
type ClientOps struct {
	// Client is the workload client's index (0-based).
	Client int
	// Keep lists the kept slots as ranges. Invariant: sorted, each range's
	// First <= Last, and a gap of at least one slot between ranges (so a
	// set of slots has one spelling); empty keeps none.
	Keep []OpRange
}

// OpRange is the slots First..Last, both included.
type OpRange struct {
	First, Last int
}

// OpRangesMax caps the ranges of one ClientOps; a plan with more is refused.
const OpRangesMax = 1 << 16

// Keeps reports whether slot is one of c's kept slots.
func (c ClientOps) Keeps(slot int) bool {
	i := sort.Search(len(c.Keep), func(i int) bool { return c.Keep[i].Last >= slot })
	return i < len(c.Keep) && c.Keep[i].First <= slot
}

// Count is how many slots c keeps.
func (c ClientOps) Count() int {
	n := 0
	for _, r := range c.Keep {
		n += r.Last - r.First + 1
	}
	return n
}

// Slots lists c's kept slots in order.
func (c ClientOps) Slots() []int {
	var out []int
	for _, r := range c.Keep {
		for s := r.First; s <= r.Last; s++ {
			out = append(out, s)
		}
	}
	return out
}

// OpRangesOf returns the ranges spelling a set of slots (any order,
// duplicates ignored); negative slots are a programming error.
func OpRangesOf(slots []int) []OpRange {
	s := append([]int(nil), slots...)
	sort.Ints(s)
	var out []OpRange
	for _, v := range s {
		if v < 0 {
			panic(fmt.Sprintf("sim: op slot %d is negative", v))
		}
		if n := len(out); n > 0 && v <= out[n-1].Last+1 {
			out[n-1].Last = max(out[n-1].Last, v)
			continue
		}
		out = append(out, OpRange{First: v, Last: v})
	}
	return out
}

// KeepsOp reports whether the plan keeps operation slot of client.
func (p *Plan) KeepsOp(client, slot int) bool {
	for _, c := range p.Ops {
		if c.Client == client {
			return c.Keeps(slot)
		}
	}
	return true
}

// validateOps checks the plan's ClientOps: clients unique and sorted, each
// within the world's nodes, ranges in their one spelling.
func (p *Plan) validateOps() error {
	for i, c := range p.Ops {
		if c.Client < 0 || c.Client >= p.Nodes {
			return fmt.Errorf("sim: ops for client %d refused: outside [0, %d)", c.Client, p.Nodes)
		}
		if i > 0 && p.Ops[i-1].Client >= c.Client {
			return fmt.Errorf("sim: ops for clients %d, %d refused: clients must be unique and sorted", p.Ops[i-1].Client, c.Client)
		}
		if len(c.Keep) > OpRangesMax {
			return fmt.Errorf("sim: ops for client %d refused: %d ranges, at most %d", c.Client, len(c.Keep), OpRangesMax)
		}
		for j, r := range c.Keep {
			switch {
			case r.First < 0 || r.First > r.Last:
				return fmt.Errorf("sim: ops for client %d range %d-%d refused: want 0 <= first <= last", c.Client, r.First, r.Last)
			case j > 0 && r.First <= c.Keep[j-1].Last+1:
				return fmt.Errorf("sim: ops for client %d range %d-%d refused: must start after %d, the previous range's end plus a gap", c.Client, r.First, r.Last, c.Keep[j-1].Last+1)
			}
		}
	}
	return nil
}

// String renders c as a plan's ops line after the word "ops":
// client=2 keep=0-3,17 (keep=none keeps nothing).
func (c ClientOps) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "client=%d keep=", c.Client)
	if len(c.Keep) == 0 {
		b.WriteString("none")
	}
	for i, r := range c.Keep {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(r.First))
		if r.Last != r.First {
			fmt.Fprintf(&b, "-%d", r.Last)
		}
	}
	return b.String()
}

// parseClientOps reads an ops line's fields (after "ops"), as String writes them.
func parseClientOps(fields []string) (ClientOps, error) {
	var c ClientOps
	if len(fields) != 2 {
		return c, fmt.Errorf("ops wants client=N keep=LIST, got %q", strings.Join(fields, " "))
	}
	cv, ok := strings.CutPrefix(fields[0], "client=")
	kv, ok2 := strings.CutPrefix(fields[1], "keep=")
	if !ok || !ok2 {
		return c, fmt.Errorf("ops fields %q refused: want client=N keep=LIST", strings.Join(fields, " "))
	}
	var err error
	if c.Client, err = strconv.Atoi(cv); err != nil {
		return c, fmt.Errorf("ops client %q refused: %v", cv, err)
	}
	if kv == "none" {
		return c, nil
	}
	parts := strings.Split(kv, ",")
	if len(parts) > OpRangesMax {
		return c, fmt.Errorf("ops keep refused: more than %d ranges", OpRangesMax)
	}
	for _, part := range parts {
		r, err := parseOpRange(part)
		if err != nil {
			return c, fmt.Errorf("ops keep %q refused: %w", part, err)
		}
		c.Keep = append(c.Keep, r)
	}
	return c, nil
}

// parseOpRange reads N or N-M.
func parseOpRange(s string) (OpRange, error) {
	a, b, isRange := strings.Cut(s, "-")
	first, err := strconv.Atoi(a)
	if err != nil {
		return OpRange{}, fmt.Errorf("want a slot or first-last")
	}
	last := first
	if isRange {
		if last, err = strconv.Atoi(b); err != nil {
			return OpRange{}, fmt.Errorf("want a slot or first-last")
		}
	}
	return OpRange{First: first, Last: last}, nil
}
