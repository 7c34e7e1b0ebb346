package faultplan

// This file holds the machinery the fault table (faultkinds.go) drives:
// what a table row and a vocabulary field are, and the generic validation,
// digest, text form and listing of a fault. Nothing here names a kind.

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/felixsim/felixsim/sim/prng"
	"github.com/felixsim/felixsim/sim/world"
)

// faultKindSpec is one row of the fault table.
type faultKindSpec struct {
	// name is the kind's plan spelling, [a-z]+; doc says in one line what
	// it does; effect says in one line what observation counts the fault
	// under coverage.FaultEffect (once per fault; see sim/world's effects.go: the
	// world notes the fault behind every condition apply sets up, and
	// counts it when the condition bites).
	name, doc, effect string
	// fields are the vocabulary the kind uses, in print order; every other
	// field of its events stays zero.
	fields []faultFieldID
	// lasting marks damage the heal does not undo (see FaultKind.Lasting).
	lasting bool
	// operator marks an operator action, not a fault: Generate draws
	// such kinds in a pass of their own, from their own random stream,
	// so that adding one leaves every seed's faults as they were.
	operator bool
	// stream marks an operator action on the run's administered stream
	// (see StreamOperator and FaultKind.AdministersStream).
	stream bool
	// fleet marks a step of a rolling upgrade (see FleetOperator and
	// FaultKind.UpgradesFleet).
	fleet bool
	// targeted marks a fault that waits for a node to reach a moment
	// (sim/world's watch.go): Generate draws such kinds in a pass of their own,
	// from their own random stream, like operator actions, so that
	// adding one leaves every seed's other faults as they were.
	targeted bool
	// shape is how long the fault lasts (see FaultShape).
	shape FaultShape
	// aimed makes Generate aim every fault of the kind at a role (when the
	// knobs name roles) instead of a quarter of them: a kind whose point is
	// what it does to the role's holder (a deposed leader, say).
	aimed bool
	// side marks the kind Generate strikes side nodes with (sidekills.go):
	// it must target a node and boot it again after its dur_ns; one kind
	// sets it.
	side bool
	// draw draws the kind's fields after Generate has drawn Node (and
	// Role) for a kind that uses Node; nil when there is nothing more.
	draw func(r *prng.Rand, f *FaultEvent, targets []int)
	// pair, when set, draws the partner fault Generate adds next to a
	// drawn one so that it is observable on its own (see the pairs in
	// faultkinds.go); nil when the kind shows on its own.
	pair func(r *prng.Rand, f FaultEvent, targets []int, durationNs int64) FaultEvent
	// check refuses what the fields' own ranges allow but the kind does
	// not; nil when the ranges suffice.
	check func(f FaultEvent) error
	// apply executes a validated fault, Node already resolved from Role.
	apply func(w *world.World, f FaultEvent)
}

// v1Column is the plan v1 key a field was stored under; v1 overloaded
// "value" and "dur" by kind. The trace digest still mixes these columns,
// so runs hash as they did before the vocabulary had names.
type v1Column uint8

const (
	colNone v1Column = iota // a field v1 did not have
	colNode
	colPeer
	colMask
	colValue
	colDur
	v1ColumnCount
)

var v1ColumnKeys = [v1ColumnCount]string{"", "node", "peer", "mask", "value", "dur"}

// faultField is one field of the fault vocabulary.
type faultField struct {
	// key is the plan v2 spelling, its unit last.
	key  string
	unit *fieldUnit
	doc  string
	// col is where plan v1 stored the field.
	col v1Column
	// min and max bound a field in ns or ppm.
	min, max int64
	// targetsMin is how many fault targets a kind using the field needs.
	targetsMin int
	// get and set read and write the field as a word (a mask's bits, a
	// flag's 0 or 1).
	get func(*FaultEvent) int64
	set func(*FaultEvent, int64)
}

// fieldUnit is how a field's word is printed, parsed and checked.
type fieldUnit struct {
	name string
	// namesNode marks a node id: it must not be a fault-exempt node.
	namesNode bool
	format    func(v int64) string
	parse     func(s string) (int64, error)
	// check returns why v is refused, or "".
	check func(fld *faultField, v int64, nodes int) string
}

const (
	int64Max = math.MaxInt64
	int64Min = math.MinInt64
)

var (
	unitNode = fieldUnit{name: "node id", namesNode: true, format: formatInt, parse: parseInt, check: checkNodeID}
	unitMask = fieldUnit{name: "node mask", format: formatMask, parse: parseMask, check: checkMask}
	unitNs   = fieldUnit{name: "ns", format: formatInt, parse: parseInt, check: checkBounds}
	unitPpm  = fieldUnit{name: "ppm", format: formatInt, parse: parseInt, check: checkBounds}
	unitFlag = fieldUnit{name: "flag", format: formatFlag, parse: parseFlag, check: checkFlag}
)

func formatInt(v int64) string                 { return strconv.FormatInt(v, 10) }
func parseInt(s string) (int64, error)         { return strconv.ParseInt(s, 10, 64) }
func formatMask(v int64) string                { return fmt.Sprintf("%#x", uint64(v)) }
func formatFlag(v int64) string                { return strconv.FormatBool(v != 0) }
func checkFlag(*faultField, int64, int) string { return "" }

func parseMask(s string) (int64, error) {
	u, err := strconv.ParseUint(s, 0, 64)
	return int64(u), err
}

// parseFlag reads true or false (v1 wrote 1 or 0).
func parseFlag(s string) (int64, error) {
	switch s {
	case "true", "1":
		return 1, nil
	case "false", "0":
		return 0, nil
	}
	return 0, fmt.Errorf("want true or false")
}

func checkNodeID(_ *faultField, v int64, nodes int) string {
	if v < 0 || v >= int64(nodes) {
		return fmt.Sprintf("outside [0, %d)", nodes)
	}
	return ""
}

func checkMask(_ *faultField, v int64, nodes int) string {
	if nodes < 64 && uint64(v)>>uint(nodes) != 0 {
		return fmt.Sprintf("names nodes beyond %d", nodes)
	}
	return ""
}

func checkBounds(fld *faultField, v int64, _ int) string {
	switch {
	case v >= fld.min && v <= fld.max:
		return ""
	case fld.max == int64Max:
		return fmt.Sprintf("below %d", fld.min)
	}
	return fmt.Sprintf("outside [%d, %d]", fld.min, fld.max)
}

// valid reports whether k is a row of the table other than the zero one.
func (k FaultKind) valid() bool { return k > faultInvalid && int(k) < len(faultKinds) }

// String names the kind as plan files spell it.
func (k FaultKind) String() string {
	if k.valid() {
		return faultKinds[k].name
	}
	return fmt.Sprintf("fault(%d)", uint8(k))
}

// ParseFaultKind reads a kind name.
func ParseFaultKind(s string) (FaultKind, error) {
	names := make([]string, 0, len(faultKinds))
	for _, k := range AllFaultKinds() {
		if faultKinds[k].name == s {
			return k, nil
		}
		names = append(names, faultKinds[k].name)
	}
	return faultInvalid, fmt.Errorf("sim: fault kind %q refused: not one of %s", s, strings.Join(names, ", "))
}

// AllFaultKinds lists every valid kind in order.
func AllFaultKinds() []FaultKind {
	out := make([]FaultKind, 0, len(faultKinds))
	for k := FaultKind(1); k.valid(); k++ {
		out = append(out, k)
	}
	return out
}

// Operator reports whether the kind is an operator action (drawn apart
// from the faults; see Generate) rather than a fault.
func (k FaultKind) Operator() bool { return k.valid() && faultKinds[k].operator }

// Targeted reports whether the kind waits for a node to reach a moment
// and strikes it there (drawn apart from the other faults; see Generate).
func (k FaultKind) Targeted() bool { return k.valid() && faultKinds[k].targeted }

// AdministersStream reports whether the kind is an operator action on the
// run's administered stream: a run whose plan holds one must give its
// cluster such a stream (see Plan.AdministersStream).
func (k FaultKind) AdministersStream() bool { return k.valid() && faultKinds[k].stream }

// UpgradesFleet reports whether the kind is a step of a rolling upgrade:
// a run whose plan holds one boots its cluster before the upgrade (see
// Plan.UpgradesFleet).
func (k FaultKind) UpgradesFleet() bool { return k.valid() && faultKinds[k].fleet }

// Lasting reports whether the kind's damage outlives the heal (a corrupted
// sector): a drawn plan should keep it on a minority of the nodes that
// must keep a quorum.
func (k FaultKind) Lasting() bool { return k.valid() && faultKinds[k].lasting }

// FaultShape is how long a fault lasts, for a reader drawing a run over
// time (the timeline); the zero value is invalid.
type FaultShape uint8

// Fault shapes.
const (
	shapeInvalid FaultShape = iota
	// ShapeMoment happens at once (a reboot, a clock jump, a flipped bit).
	ShapeMoment
	// ShapeCut is a network cut: it lasts until a ShapeClear fault or the heal.
	ShapeCut
	// ShapeClear ends every network cut.
	ShapeClear
	// ShapeSetting sets a condition on the nodes it names (every link when
	// it names none): it lasts until the same kind on the same nodes, or the heal.
	ShapeSetting
	// ShapeSpan lasts dur_ns (a kill until the reboot, a pause until the resume).
	ShapeSpan
)

// Shape says how long the kind's faults last.
func (k FaultKind) Shape() FaultShape {
	if !k.valid() {
		return shapeInvalid
	}
	return faultKinds[k].shape
}

// Nodes lists the nodes f names, distinct, in field order: node, peer and
// the bits of mask, each when the kind uses it.
func (f FaultEvent) Nodes() []int {
	var out []int
	add := func(n int) {
		for _, m := range out {
			if m == n {
				return
			}
		}
		out = append(out, n)
	}
	if f.Kind.uses(fieldNode) {
		add(f.Node)
	}
	if f.Kind.uses(fieldPeer) {
		add(f.Peer)
	}
	if f.Kind.uses(fieldMask) {
		for n := 0; n < world.NodesMax; n++ {
			if f.Mask&(1<<uint(n)) != 0 {
				add(n)
			}
		}
	}
	return out
}

// Renumbered returns f with every node it names (node, unless a role
// names it; peer; the bits of mask) mapped by to; false when to maps one
// of them to nothing.
func (f FaultEvent) Renumbered(to func(id int) (int, bool)) (FaultEvent, bool) {
	if f.Kind.uses(fieldNode) && f.Role == "" {
		n, ok := to(f.Node)
		if !ok {
			return f, false
		}
		f.Node = n
	}
	if f.Kind.uses(fieldPeer) {
		n, ok := to(f.Peer)
		if !ok {
			return f, false
		}
		f.Peer = n
	}
	if f.Kind.uses(fieldMask) {
		var mask uint64
		for id := 0; id < world.NodesMax; id++ {
			if f.Mask&(1<<uint(id)) == 0 {
				continue
			}
			n, ok := to(id)
			if !ok || n < 0 || n >= world.NodesMax {
				return f, false
			}
			mask |= 1 << uint(n)
		}
		f.Mask = mask
	}
	return f, true
}

// uses reports whether the kind's events carry field id.
func (k FaultKind) uses(id faultFieldID) bool {
	if !k.valid() {
		return false
	}
	for _, u := range faultKinds[k].fields {
		if u == id {
			return true
		}
	}
	return false
}

// targetsNode reports whether the kind acts on FaultEvent.Node (and so may
// be aimed at a role).
func (k FaultKind) targetsNode() bool { return k.uses(fieldNode) }

// targetsMin is how many fault targets the kind needs to be drawn.
func (k FaultKind) targetsMin() int {
	n := 0
	for _, id := range faultKinds[k].fields {
		n = max(n, faultFields[id].targetsMin)
	}
	return n
}

// otherNodeIs reports whether a node-id field of f other than Node is id.
func (f *FaultEvent) otherNodeIs(id int) bool {
	for _, fid := range faultKinds[f.Kind].fields {
		if fld := &faultFields[fid]; fid != fieldNode && fld.unit.namesNode && fld.get(f) == int64(id) {
			return true
		}
	}
	return false
}

func (f FaultEvent) validate(nodes int) error {
	switch {
	case !f.Kind.valid():
		return fmt.Errorf("sim: fault kind %d refused: unknown", f.Kind)
	case f.AtNs < 0:
		return fmt.Errorf("sim: %s at %d ns refused: negative time", f.Kind, f.AtNs)
	case f.Role != "" && (!validParamName(f.Role) || !f.Kind.targetsNode()):
		return fmt.Errorf("sim: %s role %q refused: a role needs a kind with a node and a name in [a-z0-9_]+", f.Kind, f.Role)
	}
	for id := faultFieldID(0); id < faultFieldCount; id++ {
		fld := &faultFields[id]
		v := fld.get(&f)
		if !f.Kind.uses(id) {
			if v != 0 {
				return fmt.Errorf("sim: %s %s=%s refused: kind %s has no %s", f.Kind, fld.key, fld.unit.format(v), f.Kind, fld.key)
			}
			continue
		}
		if why := fld.unit.check(fld, v, nodes); why != "" {
			return fmt.Errorf("sim: %s %s=%s refused: %s", f.Kind, fld.key, fld.unit.format(v), why)
		}
	}
	if check := faultKinds[f.Kind].check; check != nil {
		if err := check(f); err != nil {
			return fmt.Errorf("sim: %s refused: %w", f, err)
		}
	}
	return nil
}

// digest hashes the fault for the trace: the kind, the v1 columns as v1
// hashed them, then any field of the kind that v1 did not have, and the role.
func (f FaultEvent) digest() uint64 {
	var col [v1ColumnCount]uint64
	fields := faultKinds[f.Kind].fields
	for _, id := range fields {
		col[faultFields[id].col] = uint64(faultFields[id].get(&f))
	}
	h := world.MixWord(world.TraceHashInit, uint64(f.Kind))
	h = world.MixWord(h, col[colNode]|col[colPeer]<<32)
	h = world.MixWord(h, col[colMask])
	h = world.MixWord(h, col[colValue])
	h = world.MixWord(h, col[colDur])
	for _, id := range fields {
		if faultFields[id].col == colNone {
			h = world.MixWord(h, uint64(faultFields[id].get(&f)))
		}
	}
	for i := 0; i < len(f.Role); i++ {
		h = world.MixWord(h, uint64(f.Role[i]))
	}
	return h
}

// String renders one fault as plan v2 key=value fields: at_ns, kind, every
// field the kind uses, and the role if set.
func (f FaultEvent) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "at_ns=%d kind=%s", f.AtNs, f.Kind)
	if f.Kind.valid() {
		for _, id := range faultKinds[f.Kind].fields {
			fld := &faultFields[id]
			fmt.Fprintf(&b, " %s=%s", fld.key, fld.unit.format(fld.get(&f)))
		}
	}
	if f.Role != "" {
		fmt.Fprintf(&b, " role=%s", f.Role)
	}
	return b.String()
}

// FaultTable lists every fault kind, one line each (name and meaning),
// then an indented line saying what counts as its effect, then one per field: its plan key, unit and meaning.
func FaultTable() string {
	var b strings.Builder
	for _, k := range AllFaultKinds() {
		spec := &faultKinds[k]
		fmt.Fprintf(&b, "%-12s %s\n", spec.name, spec.doc)
		fmt.Fprintf(&b, "%-12s   effect: %s\n", "", spec.effect)
		for _, id := range spec.fields {
			fld := &faultFields[id]
			fmt.Fprintf(&b, "%-12s   %s (%s): %s\n", "", fld.key, fld.unit.name, fld.doc)
		}
	}
	return b.String()
}
