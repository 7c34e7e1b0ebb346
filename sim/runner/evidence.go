package runner

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/felixsim/felixsim/properties"
)

// EvidenceMax is how many operations a violation carries as evidence.
const EvidenceMax = 3

// Evidence is one client operation a violation names, as the history
// holds it: who asked what, where, when, and how it ended.
type Evidence struct {
	Op      uint64 `json:"op"`
	Client  int    `json:"client"`
	Kind    string `json:"kind"`
	Scope   string `json:"scope"`
	Outcome string `json:"outcome"`
	// Offset is where an ok write landed; Expected a conditional write's
	// expected offset; Tail a refusal's tail; Version a read's version.
	Offset   uint64 `json:"offset,omitempty"`
	Expected uint64 `json:"expected_offset,omitempty"`
	Tail     uint64 `json:"tail,omitempty"`
	Version  uint64 `json:"version,omitempty"`
	Key      string `json:"key,omitempty"`
	InvokeNs int64  `json:"invoke_ns"`
	// CompleteNs is 0 while pending.
	CompleteNs int64 `json:"complete_ns,omitempty"`
	// Brokers are the brokers the violation's message names (raft ids).
	Brokers []uint64 `json:"brokers,omitempty"`
}

var (
	opRef     = regexp.MustCompile(`\bop (\d+)\b`)
	brokerRef = regexp.MustCompile(`\bbroker[- ](\d+)\b`)
	// quotedRef is a Go-quoted string: the replica checks name a write by
	// its record's event payload.
	quotedRef = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
)

// evidenceOf finds the first EvidenceMax distinct operations msg names in
// the history lk looks in (in ascending id order): "op N", as the history
// checks word them, or a quoted event payload, as the replica checks name
// a write (the first write that carried it, an ok one if any); with the
// brokers msg names.
func evidenceOf(msg string, lk historyLookup) []Evidence {
	if lk == nil {
		return nil
	}
	ids := opIDsIn(msg, lk)
	var brokers []uint64
	for _, m := range brokerRef.FindAllStringSubmatch(msg, 8) {
		id, err := strconv.ParseUint(m[1], 10, 64)
		if err == nil && !slices.Contains(brokers, id) {
			brokers = append(brokers, id)
		}
	}
	var out []Evidence
	for _, id := range ids {
		e, ok := lk.evidence(id)
		if !ok {
			continue
		}
		e.Brokers = brokers
		out = append(out, e)
		if len(out) == EvidenceMax {
			break
		}
	}
	return out
}

// opIDsIn lists the operation ids msg names, distinct, in message order.
func opIDsIn(msg string, lk historyLookup) []uint64 {
	var ids []uint64
	add := func(id uint64) {
		if id != 0 && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	for _, id := range opRefsIn(msg) {
		add(id)
	}
	if len(ids) > 0 {
		return ids
	}
	for _, p := range payloadsIn(msg) {
		add(lk.writeWithPayload(p))
	}
	if len(ids) > 0 {
		return ids
	}
	return writesAtOffset(msg, lk)
}

// evidenceFrom is op's evidence.
func evidenceFrom(op *properties.HistoryOp) Evidence {
	e := Evidence{Op: op.ID, Client: op.Client, Kind: op.Kind.String(), Scope: op.Scope.String(), Outcome: op.Outcome.String(),
		Offset: op.Offset, Tail: op.Tail, Version: op.Version, Key: op.Key, InvokeNs: op.InvokeNs, CompleteNs: op.CompleteNs}
	if op.Record != nil && op.Record.Conditional {
		e.Expected = op.Record.ExpectedOffset
	}
	return e
}

// String renders the operation on one line for the summary.
func (e Evidence) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "op %d: client %d %s on %s", e.Op, e.Client, e.Kind, e.Scope)
	if e.Key != "" {
		fmt.Fprintf(&b, " key %q", e.Key)
	}
	fmt.Fprintf(&b, ", invoked at %s", fmtNs(e.InvokeNs))
	if e.Outcome == properties.OutcomePending.String() {
		b.WriteString(", still pending")
	} else {
		fmt.Fprintf(&b, ", %s at %s", e.Outcome, fmtNs(e.CompleteNs))
	}
	if e.Offset != 0 {
		fmt.Fprintf(&b, ", offset %d", e.Offset)
	}
	if e.Expected != 0 {
		fmt.Fprintf(&b, ", expected offset %d", e.Expected)
	}
	if e.Tail != 0 {
		fmt.Fprintf(&b, ", tail %d", e.Tail)
	}
	if e.Version != 0 {
		fmt.Fprintf(&b, ", version %d", e.Version)
	}
	if len(e.Brokers) > 0 {
		fmt.Fprintf(&b, " (message names broker %v)", e.Brokers)
	}
	return b.String()
}

// Short renders the operation compactly for a summary line: its id,
// client, kind and scope, and how it ended.
func (e Evidence) Short() string {
	var b strings.Builder
	fmt.Fprintf(&b, "op %d (client %d %s on %s", e.Op, e.Client, e.Kind, e.Scope)
	if e.Outcome == properties.OutcomePending.String() {
		fmt.Fprintf(&b, ", pending since %.3f s", float64(e.InvokeNs)/1e9)
	} else {
		fmt.Fprintf(&b, ", %s at %.3f s", e.Outcome, float64(e.CompleteNs)/1e9)
	}
	if e.Offset != 0 {
		fmt.Fprintf(&b, ", offset %d", e.Offset)
	}
	b.WriteString(")")
	return b.String()
}
