package faultplan

// This file is the one place a fault kind is defined. A kind is a constant
// below and one entry in faultKinds: its name, its one-line meaning, the
// fields it uses (from faultFields, each with its unit and meaning), how it
// is drawn, any check beyond its fields' ranges, and how it is applied. The
// plan printer and parser, Validate, Generate, ApplyPlan, the trace digest
// and `felixsim run --list-faults` read the table and hold no per-kind code
// (TestAddingAFaultKindTouchesOneFile scans the tree for that).
//
// Adding a kind: append a constant (at the end: the number is hashed into
// the trace) and its entry. A kind that needs a field the vocabulary lacks
// adds it here too: a FaultEvent field named with its unit last and a
// faultFields entry (a new field has no v1 column). The kinds expected next
// fit that mould: a replaced disk (node), a membership change (node
// and an add/remove field), a leadership transfer (node and peer). An
// operator action (not a fault) sets operator: Generate draws it apart;
// one on the run's administered stream sets stream (world.StreamOperator), a
// rolling-upgrade step sets fleet (world.FleetOperator).

import (
	"fmt"
	"strings"

	"github.com/felixsim/felixsim/moment"
	"github.com/felixsim/felixsim/sim/prng"
	"github.com/felixsim/felixsim/sim/world"
)

// FaultKind names one kind of fault a plan can schedule; zero is invalid.
type FaultKind uint8

// Fault kinds, in table order; their names are the plan file's vocabulary.
// The numbers are hashed into the trace: new kinds go at the end.
const (
	faultInvalid FaultKind = iota
	FaultPartition
	FaultOneWay
	FaultIsolate
	FaultSplit
	FaultBridge
	FaultHealNet
	FaultLoss
	FaultDuplicate
	FaultReorder
	FaultLatency
	FaultKill
	FaultRestart
	FaultPause
	FaultResume
	FaultClockJump
	FaultClockDrift
	FaultFsyncErr
	FaultReadErr
	FaultCorrupt
	FaultDiskLatency
	FaultCrashAt
	FaultStrand
	FaultClientCut
	FaultCalm
	FaultStreamDelete
	FaultStreamCreate
	FaultUpgrade
	FaultFinalize
	// Kinds carried out by the system's operator (world.Operator).
	FaultDiskReplace
	FaultMembership
	FaultRetain
	// Targeted kinds: each waits for a broker to reach a moment.
	FaultRestartAfter
	FaultCrashAfter
	FaultPauseAfter
)

// FaultEvent is one timed fault. AtNs, Kind and Role are every kind's; the
// fields after them are the fault vocabulary (see faultFields): each kind
// uses those its table entry lists, and the others stay zero.
type FaultEvent struct {
	AtNs int64
	Kind FaultKind
	// Role, when set on a kind that uses Node, names the node by what it
	// is at apply time (e.g. "leader") instead of by Node:
	// Config.ResolveRole picks it then. The fault is skipped when the role
	// has no holder.
	Role string

	Node         int
	Peer         int
	Mask         uint64
	ChancePpm    int64
	DelayMaxNs   int64
	LatencyMaxNs int64
	JumpNs       int64
	DriftPpm     int64
	Torn         bool
	DurNs        int64
	DiskOps      int64
	CrashModel   world.CrashModel
	KeepRecords  int64
	After        moment.Moment
	WindowNs     int64
}

// faultFieldID indexes faultFields.
type faultFieldID uint8

// The fault vocabulary, in the order a fault prints its fields.
const (
	fieldNode faultFieldID = iota
	fieldPeer
	fieldMask
	fieldChancePpm
	fieldDelayMaxNs
	fieldLatencyMaxNs
	fieldJumpNs
	fieldDriftPpm
	fieldTorn
	fieldDurNs
	fieldDiskOps
	fieldCrashModel
	fieldKeepRecords
	fieldAfter
	fieldWindowNs
	faultFieldCount
)

// faultFields describes each field of the vocabulary: its plan key (unit
// last), unit, meaning, v1 plan column, bounds and accessors.
var faultFields = [faultFieldCount]faultField{
	fieldNode: {key: "node", unit: &unitNode, col: colNode, targetsMin: 1,
		doc: "the node it acts on (with role=, the role's holder at apply time instead)",
		get: func(f *FaultEvent) int64 { return int64(f.Node) },
		set: func(f *FaultEvent, v int64) { f.Node = int(v) }},
	fieldPeer: {key: "peer", unit: &unitNode, col: colPeer, targetsMin: 2,
		doc: "the node at the other end",
		get: func(f *FaultEvent) int64 { return int64(f.Peer) },
		set: func(f *FaultEvent, v int64) { f.Peer = int(v) }},
	fieldMask: {key: "mask", unit: &unitMask, col: colMask, targetsMin: 2,
		doc: "a set of nodes, one bit per node id: one side of a cut, or the nodes a targeted fault may strike",
		get: func(f *FaultEvent) int64 { return int64(f.Mask) },
		set: func(f *FaultEvent, v int64) { f.Mask = uint64(v) }},
	fieldChancePpm: {key: "chance_ppm", unit: &unitPpm, col: colValue, min: 0, max: world.PpmScale,
		doc: "the chance it strikes each message or disk operation",
		get: func(f *FaultEvent) int64 { return f.ChancePpm },
		set: func(f *FaultEvent, v int64) { f.ChancePpm = v }},
	fieldDelayMaxNs: {key: "delay_max_ns", unit: &unitNs, col: colDur, min: 0, max: int64Max,
		doc: "the most extra delay a struck message takes",
		get: func(f *FaultEvent) int64 { return f.DelayMaxNs },
		set: func(f *FaultEvent, v int64) { f.DelayMaxNs = v }},
	fieldLatencyMaxNs: {key: "latency_max_ns", unit: &unitNs, col: colValue, min: 0, max: int64Max,
		doc: "the new upper bound on the latency",
		get: func(f *FaultEvent) int64 { return f.LatencyMaxNs },
		set: func(f *FaultEvent, v int64) { f.LatencyMaxNs = v }},
	fieldJumpNs: {key: "jump_ns", unit: &unitNs, col: colValue, min: int64Min, max: int64Max,
		doc: "how far the node's clock moves, forward if positive",
		get: func(f *FaultEvent) int64 { return f.JumpNs },
		set: func(f *FaultEvent, v int64) { f.JumpNs = v }},
	fieldDriftPpm: {key: "drift_ppm", unit: &unitPpm, col: colValue, min: -world.DriftPpmMax, max: world.DriftPpmMax,
		doc: "the node clock's new drift rate, fast if positive",
		get: func(f *FaultEvent) int64 { return f.DriftPpm },
		set: func(f *FaultEvent, v int64) { f.DriftPpm = v }},
	fieldTorn: {key: "torn", unit: &unitFlag, col: colValue,
		doc: "true: writes in flight are torn; false: unsynced writes are lost",
		get: func(f *FaultEvent) int64 {
			if f.Torn {
				return 1
			}
			return 0
		},
		set: func(f *FaultEvent, v int64) { f.Torn = v != 0 }},
	fieldDurNs: {key: "dur_ns", unit: &unitNs, col: colDur, min: 0, max: int64Max,
		doc: "how long until it undoes itself; 0 lasts until a later fault or the heal",
		get: func(f *FaultEvent) int64 { return f.DurNs },
		set: func(f *FaultEvent, v int64) { f.DurNs = v }},
	fieldDiskOps: {key: "disk_ops", unit: &unitOps, min: 1, max: DiskOpsMax,
		doc: "which of the node's disk writes, truncates, creates, removes, renames and directory syncs from now it dies before (1 = the next)",
		get: func(f *FaultEvent) int64 { return f.DiskOps },
		set: func(f *FaultEvent, v int64) { f.DiskOps = v }},
	fieldCrashModel: {key: "crash_model", unit: &unitCrashModel,
		doc: "what the disk keeps of unsynced bytes: lost, torn (whole sectors of the tail) or kept",
		get: func(f *FaultEvent) int64 { return int64(f.CrashModel) },
		set: func(f *FaultEvent, v int64) { f.CrashModel = world.CrashModel(v) }},
	fieldKeepRecords: {key: "keep_records", unit: &unitRecords, min: 0, max: KeepRecordsMax,
		doc: "how many of each scope's newest records a retention step keeps",
		get: func(f *FaultEvent) int64 { return f.KeepRecords },
		set: func(f *FaultEvent, v int64) { f.KeepRecords = v }},
	fieldAfter: {key: "after", unit: &unitMoment,
		doc: "the moment it waits for, each reported once the store commit that reached it is durable: " + momentDocList(),
		get: func(f *FaultEvent) int64 { return int64(f.After) },
		set: func(f *FaultEvent, v int64) { f.After = moment.Moment(v) }},
	fieldWindowNs: {key: "window_ns", unit: &unitNs, min: 0, max: int64Max,
		doc: "how long it waits for the moment; then it lapses",
		get: func(f *FaultEvent) int64 { return f.WindowNs },
		set: func(f *FaultEvent, v int64) { f.WindowNs = v }},
}

// unitMoment is a moment a targeted fault waits for, by its name.
var unitMoment = fieldUnit{name: "moment",
	format: func(v int64) string { return moment.Moment(v).String() },
	parse: func(s string) (int64, error) {
		m, err := moment.Parse(s)
		return int64(m), err
	},
	check: func(_ *faultField, v int64, _ int) string {
		if v < 0 || v > 255 || !moment.Moment(v).Valid() {
			return "not one of " + strings.Join(momentNames(), ", ")
		}
		return ""
	}}

// momentDocList lists every moment with what it is.
func momentDocList() string {
	var out []string
	for _, m := range moment.All() {
		out = append(out, m.String()+" ("+m.Doc()+")")
	}
	return strings.Join(out, ", ")
}

// momentNames spells every moment, in order.
func momentNames() []string {
	var out []string
	for _, m := range moment.All() {
		out = append(out, m.String())
	}
	return out
}

// KeepRecordsMax bounds a retention step's keep_records.
const KeepRecordsMax = 1 << 24

var unitRecords = fieldUnit{name: "records", format: formatInt, parse: parseInt, check: checkBounds}

// crashModelsDrawn weighs the crash models crashat draws.
var crashModelsDrawn = [...]world.CrashModel{world.CrashLost, world.CrashTorn, world.CrashTorn, world.CrashKept, world.CrashKept}

// DiskOpsMax bounds a crash's disk-operation count.
const DiskOpsMax = 1 << 20

var (
	unitOps        = fieldUnit{name: "disk operations", format: formatInt, parse: parseInt, check: checkBounds}
	unitCrashModel = fieldUnit{name: "crash model",
		format: func(v int64) string { return world.CrashModel(v).String() },
		parse: func(s string) (int64, error) {
			m, err := world.ParseCrashModel(s)
			return int64(m), err
		},
		check: func(_ *faultField, v int64, _ int) string {
			if v < 0 || v > 255 || !world.CrashModel(v).Valid() {
				return "not one of lost, torn, kept"
			}
			return ""
		}}
)

// msNs is a millisecond, for the draw ranges below.
const msNs = int64(1_000_000)

// faultKinds is the table of fault kinds, indexed by FaultKind. Node and
// Role are drawn before draw runs, for the kinds that use Node.
var faultKinds = []faultKindSpec{
	faultInvalid: {name: "invalid"},
	FaultPartition: {shape: ShapeCut, name: "partition", doc: "cut node <-> peer both ways",
		effect: "a message was dropped on a link it cut",
		fields: []faultFieldID{fieldNode, fieldPeer}, draw: drawPeer, check: checkPeerIsOther,
		apply: func(w *world.World, f FaultEvent) { w.Partition(f.Node, f.Peer) }},
	FaultOneWay: {shape: ShapeCut, name: "oneway", doc: "cut node -> peer only",
		effect: "a message was dropped on the link it cut",
		fields: []faultFieldID{fieldNode, fieldPeer}, draw: drawPeer, check: checkPeerIsOther,
		apply: func(w *world.World, f FaultEvent) { w.Block(f.Node, f.Peer) }},
	FaultIsolate: {shape: ShapeCut, name: "isolate", doc: "cut every link of node",
		effect: "a message was dropped on a link it cut",
		fields: []faultFieldID{fieldNode},
		apply:  func(w *world.World, f FaultEvent) { w.Isolate(f.Node) }},
	FaultSplit: {shape: ShapeCut, name: "split", doc: "cut the nodes in mask from the rest",
		effect: "a message was dropped on a link it cut",
		fields: []faultFieldID{fieldMask}, draw: drawMask,
		apply: func(w *world.World, f FaultEvent) { w.Split(f.Mask) }},
	FaultBridge: {shape: ShapeCut, name: "bridge", doc: "split mask from the rest; node keeps links to both sides",
		effect: "a message was dropped on a link it cut",
		fields: []faultFieldID{fieldNode, fieldMask}, draw: drawMask,
		apply: func(w *world.World, f FaultEvent) { w.Bridge(f.Node, f.Mask) }},
	FaultHealNet: {shape: ShapeClear, name: "healnet", doc: "remove partitions, restore links",
		effect: "it removed a cut or restored a faulted link",
		apply:  func(w *world.World, f FaultEvent) { w.HealNetwork() },
		pair:   pairCutBefore},
	FaultLoss: {shape: ShapeSetting, name: "loss", doc: "every link loses messages",
		effect: "a message was lost to it",
		fields: []faultFieldID{fieldChancePpm}, draw: drawChanceLow,
		apply: func(w *world.World, f FaultEvent) { w.SetLinks(func(l *world.LinkConfig) { l.LossPpm = f.ChancePpm }) }},
	FaultDuplicate: {shape: ShapeSetting, name: "duplicate", doc: "every link duplicates messages",
		effect: "a message was delivered twice",
		fields: []faultFieldID{fieldChancePpm}, draw: drawChanceLow,
		apply: func(w *world.World, f FaultEvent) {
			w.SetLinks(func(l *world.LinkConfig) { l.DuplicatePpm = f.ChancePpm })
		}},
	FaultReorder: {shape: ShapeSetting, name: "reorder", doc: "every link delays messages by an extra up to delay_max_ns",
		effect: "a message took its extra delay",
		fields: []faultFieldID{fieldChancePpm, fieldDelayMaxNs},
		draw: func(r *prng.Rand, f *FaultEvent, _ []int) {
			f.ChancePpm, f.DelayMaxNs = r.Int63nRange(50_000, 500_000), r.Int63nRange(msNs, 50*msNs)
		},
		apply: func(w *world.World, f FaultEvent) {
			w.SetLinks(func(l *world.LinkConfig) { l.ReorderPpm, l.ReorderDelayMaxNs = f.ChancePpm, f.DelayMaxNs })
		}},
	FaultLatency: {shape: ShapeSetting, name: "latency", doc: "every link's latency bound rises (never below its minimum)",
		effect: "a message took longer than the baseline latency allows",
		fields: []faultFieldID{fieldLatencyMaxNs},
		draw:   func(r *prng.Rand, f *FaultEvent, _ []int) { f.LatencyMaxNs = r.Int63nRange(msNs, 100*msNs) },
		apply: func(w *world.World, f FaultEvent) {
			w.SetLinks(func(l *world.LinkConfig) { l.LatencyMaxNs = max(l.LatencyMinNs, f.LatencyMaxNs) })
		}},
	FaultKill: {shape: ShapeSpan, name: "kill", doc: "kill node; it boots again after dur_ns",
		effect: "a running or paused node lost its process", side: true,
		fields: []faultFieldID{fieldNode, fieldTorn, fieldDurNs},
		draw: func(r *prng.Rand, f *FaultEvent, _ []int) {
			f.Torn, f.DurNs = r.Intn(2) == 1, r.Int63nRange(msNs, 2000*msNs)
		},
		apply: func(w *world.World, f FaultEvent) { w.Kill(f.Node, f.Torn, f.DurNs) }},
	FaultRestart: {shape: ShapeMoment, name: "restart", doc: "boot node if it is down",
		effect: "a down node booted",
		fields: []faultFieldID{fieldNode},
		apply:  func(w *world.World, f FaultEvent) { w.Restart(f.Node) },
		pair:   pairKillBefore},
	FaultPause: {shape: ShapeSpan, name: "pause", doc: "pause node; it resumes after dur_ns",
		effect: "a message reached the node while it was paused (it waits until resume)",
		fields: []faultFieldID{fieldNode, fieldDurNs},
		draw:   func(r *prng.Rand, f *FaultEvent, _ []int) { f.DurNs = r.Int63nRange(msNs, 1000*msNs) },
		apply:  func(w *world.World, f FaultEvent) { w.Pause(f.Node, f.DurNs) }},
	FaultResume: {shape: ShapeMoment, name: "resume", doc: "resume node if it is paused",
		effect: "a paused node resumed",
		fields: []faultFieldID{fieldNode},
		apply:  func(w *world.World, f FaultEvent) { w.Resume(f.Node) },
		pair:   pairPauseBefore},
	FaultClockJump: {shape: ShapeMoment, name: "clockjump", doc: "move node's clock, its timers with it",
		effect: "the clock of a node with armed timers moved",
		fields: []faultFieldID{fieldNode, fieldJumpNs},
		draw: func(r *prng.Rand, f *FaultEvent, _ []int) {
			f.JumpNs = r.Int63nRange(msNs, 10_000*msNs)
			if r.Uint64()&1 == 1 {
				f.JumpNs = -f.JumpNs
			}
		},
		apply: func(w *world.World, f FaultEvent) { w.ClockJump(f.Node, f.JumpNs) }},
	FaultClockDrift: {shape: ShapeSetting, name: "clockdrift", doc: "set node's clock drift",
		effect: "the drift of a node with armed timers changed",
		fields: []faultFieldID{fieldNode, fieldDriftPpm},
		draw:   func(r *prng.Rand, f *FaultEvent, _ []int) { f.DriftPpm = r.Int63nRange(-200_000, 200_000) },
		apply:  applyClockDrift},
	FaultFsyncErr: {shape: ShapeSetting, name: "fsyncerr", doc: "node's fsyncs fail",
		effect: "an fsync of the node failed",
		fields: []faultFieldID{fieldNode, fieldChancePpm}, draw: drawChanceLow,
		apply: func(w *world.World, f FaultEvent) { w.SetFsyncErrPpm(f.Node, f.ChancePpm) }},
	FaultReadErr: {shape: ShapeSetting, name: "readerr", doc: "node's reads fail",
		effect: "a read of the node failed",
		// The store reads only when it opens (a handful of reads per boot),
		// so a low chance would almost never strike: draw 20% to 80%.
		fields: []faultFieldID{fieldNode, fieldChancePpm},
		draw:   func(r *prng.Rand, f *FaultEvent, _ []int) { f.ChancePpm = r.Int63nRange(200_000, 800_000) },
		apply:  func(w *world.World, f FaultEvent) { w.SetReadErrPpm(f.Node, f.ChancePpm) },
		pair:   pairCrashAfter},
	FaultCorrupt: {shape: ShapeMoment, name: "corrupt", doc: "flip a bit in one sector of node's disk (the heal does not undo it)",
		effect: "the node read the flipped bit back",
		fields: []faultFieldID{fieldNode}, lasting: true,
		apply: func(w *world.World, f FaultEvent) { w.CorruptSector(f.Node) },
		pair:  pairCrashAfter},
	FaultDiskLatency: {shape: ShapeSetting, name: "disklatency", doc: "node's disk operations take up to latency_max_ns",
		effect: "a disk operation of the node was delayed",
		fields: []faultFieldID{fieldNode, fieldLatencyMaxNs},
		draw:   func(r *prng.Rand, f *FaultEvent, _ []int) { f.LatencyMaxNs = r.Int63nRange(msNs/10, 50*msNs) },
		apply:  func(w *world.World, f FaultEvent) { w.SetDiskLatencyMaxNs(f.Node, f.LatencyMaxNs) }},
	FaultCrashAt: {shape: ShapeSpan, name: "crashat", doc: "node dies at a disk operation (inside a store commit), before it lands; it boots again after dur_ns",
		effect: "the node died at the armed disk operation",
		fields: []faultFieldID{fieldNode, fieldDiskOps, fieldCrashModel, fieldDurNs},
		draw: func(r *prng.Rand, f *FaultEvent, _ []int) {
			// Lost is drawn least: a kill between events already loses
			// exactly the unsynced bytes; torn and kept leave a partial
			// transaction for recovery to find.
			f.DiskOps, f.CrashModel = r.Int63nRange(1, 48), crashModelsDrawn[r.Intn(len(crashModelsDrawn))]
			f.DurNs = r.Int63nRange(msNs, 2000*msNs)
		},
		apply: func(w *world.World, f FaultEvent) { w.CrashAtDiskOp(f.Node, f.DiskOps, f.CrashModel, f.DurNs) }},
	FaultStrand: {shape: ShapeSpan, name: "strand", doc: "cut node from the other targets (brokers), not from the exempt (clients), and move its clock by jump_ns; after dur_ns the links and the clock return",
		effect: "a message was dropped on a link it cut",
		fields: []faultFieldID{fieldNode, fieldJumpNs, fieldDurNs}, aimed: true,
		draw: func(r *prng.Rand, f *FaultEvent, _ []int) {
			f.JumpNs, f.DurNs = -r.Int63nRange(500*msNs, 5000*msNs), r.Int63nRange(1000*msNs, 6000*msNs)
		},
		apply: func(w *world.World, f FaultEvent) {
			w.ClockJump(f.Node, f.JumpNs)
			w.CutPeers(f.Node, f.DurNs)
			if f.DurNs > 0 {
				w.At(w.NowNs()+f.DurNs, uint64(f.Node), func() { w.ClockJump(f.Node, -f.JumpNs) })
			}
		}},
	FaultClientCut: {shape: ShapeSpan, name: "clientcut", doc: "cut node from the exempt nodes (clients), not from the other targets (brokers); the links return after dur_ns",
		effect: "a message was dropped on a link it cut",
		fields: []faultFieldID{fieldNode, fieldDurNs},
		draw:   func(r *prng.Rand, f *FaultEvent, _ []int) { f.DurNs = r.Int63nRange(100*msNs, 3000*msNs) },
		apply:  func(w *world.World, f FaultEvent) { w.CutExempt(f.Node, f.DurNs) }},
	FaultCalm: {shape: ShapeClear, name: "calm", doc: "undo what the heal undoes (cuts, link and disk faults, drift, pauses, down nodes); later faults still strike",
		effect: "it undid a fault condition",
		apply:  func(w *world.World, f FaultEvent) { w.Calm() }, pair: pairCutBefore},
	FaultStreamDelete: {shape: ShapeMoment, name: "streamdelete", doc: "the operator deletes the run's administered stream (through the metadata group; the heal does not undo it)",
		effect: "every shard of the stream applied the delete", operator: true, stream: true,
		apply: func(w *world.World, f FaultEvent) { streamAdmin(w, true) }},
	FaultStreamCreate: {shape: ShapeMoment, name: "streamcreate", doc: "the operator creates the run's administered stream again, as its next generation",
		effect: "every shard of the stream applied the new generation", operator: true, stream: true,
		apply: func(w *world.World, f FaultEvent) { streamAdmin(w, false) }, pair: pairDeleteBefore},
	FaultUpgrade: {shape: ShapeSpan, name: "upgrade", doc: "the operator restarts node at the version the rolling upgrade goes to (a no-op on a node already there); it boots again after dur_ns",
		effect: "the metadata group recorded the node's new version", operator: true, fleet: true,
		fields: []faultFieldID{fieldNode, fieldDurNs},
		draw:   func(r *prng.Rand, f *FaultEvent, _ []int) { f.DurNs = r.Int63nRange(msNs, 1000*msNs) },
		apply:  func(w *world.World, f FaultEvent) { upgradeBroker(w, f.Node, f.DurNs) }},
	FaultFinalize: {shape: ShapeMoment, name: "finalize", doc: "the operator finalizes the rolling upgrade's fleet feature (refused while a broker runs an older version; asked again until it is finalized)",
		effect: "the metadata group finalized the feature", operator: true, fleet: true,
		apply: func(w *world.World, f FaultEvent) { finalize(w) }},
	FaultDiskReplace: {shape: ShapeSpan, name: "diskreplace", doc: "kill node and replace its disk by an empty one; it boots on it after dur_ns (a broker under a new identity the operator adds through membership changes)",
		effect: "a running node lost its process and its disk",
		fields: []faultFieldID{fieldNode, fieldDurNs}, lasting: true,
		draw:  func(r *prng.Rand, f *FaultEvent, _ []int) { f.DurNs = r.Int63nRange(100*msNs, 2000*msNs) },
		apply: func(w *world.World, f FaultEvent) { w.ReplaceDisk(f.Node, f.DurNs) }},
	FaultMembership: {shape: ShapeSpan, name: "membership", doc: "the operator demotes node's broker to a learner in every group (a voter removed); after dur_ns it adds it back as a voter once caught up (a lasting kind: it may outlive the heal, and never overlaps damage on another broker)",
		effect: "the operator changed the membership it drives the groups to",
		fields: []faultFieldID{fieldNode, fieldDurNs}, lasting: true,
		draw:  func(r *prng.Rand, f *FaultEvent, _ []int) { f.DurNs = r.Int63nRange(500*msNs, 5000*msNs) },
		apply: applyMembership},
	FaultRetain: {shape: ShapeMoment, name: "retain", doc: "the operator has every scope drop all but its newest keep_records records (a retention step through raft; never past a consumer group's committed position)",
		effect: "a group's leader proposed a drop",
		fields: []faultFieldID{fieldKeepRecords},
		draw:   func(r *prng.Rand, f *FaultEvent, _ []int) { f.KeepRecords = r.Int63nRange(0, 32) },
		apply: func(w *world.World, f FaultEvent) {
			if w.Operator() != nil && w.Operator().Retain(f.KeepRecords) {
				w.Effect()
			}
		}},
	FaultRestartAfter: {shape: ShapeMoment, name: "restartafter", doc: "wait up to window_ns for a node in mask to reach the moment after; kill it right there (nothing after the moment runs) and boot it again after dur_ns",
		effect: "a node reached the moment in time and was killed there", targeted: true,
		fields: []faultFieldID{fieldMask, fieldAfter, fieldWindowNs, fieldDurNs}, draw: drawTargeted,
		apply: func(w *world.World, f FaultEvent) {
			w.ArmWatch(f.Mask, f.After, f.WindowNs, func(id int) {
				w.KillAtMoment(id, f.After, world.CrashLost, f.DurNs)
			})
		}},
	FaultCrashAfter: {shape: ShapeMoment, name: "crashafter", doc: "wait up to window_ns for a node in mask to reach the moment after; from there it dies at its disk_ops-th disk operation (as crashat) and boots again after dur_ns",
		effect: "a node reached the moment in time and then died at the armed disk operation", targeted: true,
		fields: []faultFieldID{fieldMask, fieldAfter, fieldWindowNs, fieldDiskOps, fieldCrashModel, fieldDurNs},
		draw: func(r *prng.Rand, f *FaultEvent, targets []int) {
			drawTargeted(r, f, targets)
			f.DiskOps, f.CrashModel = r.Int63nRange(1, 8), crashModelsDrawn[r.Intn(len(crashModelsDrawn))]
		},
		apply: func(w *world.World, f FaultEvent) {
			w.ArmWatch(f.Mask, f.After, f.WindowNs, func(id int) {
				w.CrashAtDiskOp(id, f.DiskOps, f.CrashModel, f.DurNs)
			})
		}},
	FaultPauseAfter: {shape: ShapeMoment, name: "pauseafter", doc: "wait up to window_ns for a node in mask to reach the moment after; pause it right there for dur_ns, cut from the other targets (brokers) meanwhile: what they send it is lost, as over connections that time out, while its clients' messages wait for it; then resume it",
		effect: "a node reached the moment in time and was paused there", targeted: true,
		fields: []faultFieldID{fieldMask, fieldAfter, fieldWindowNs, fieldDurNs}, draw: drawPauseAfter,
		apply: func(w *world.World, f FaultEvent) {
			w.ArmWatch(f.Mask, f.After, f.WindowNs, func(id int) {
				w.Effect()
				w.CutPeers(id, f.DurNs)
				w.Pause(id, f.DurNs)
			})
		}},
}

// crashMoments are the moments a restart or a crash waits for: the
// points that matter for crash recovery.
var crashMoments = []moment.Moment{moment.SnapshotInstalled, moment.GroupAckDurable, moment.Compacted, moment.MembershipInFlight,
	moment.PendingHeld, moment.PendingHeldYoung}

// drawTargeted draws a restart's or a crash's nodes (every target half
// the time, else one: drawMaskTargeted), moment (each of crashMoments
// alike), window and restart delay: up to 500 ms, but a quick one
// (within QuickRestartMaxNs, before the other brokers' election timeouts
// run out) after pending_held and pending_held_young: the leader holding
// proposals may lead again with its log as it left it, now a young
// incarnation, and a young one's proposals then meet the next
// incarnation's, whose sequence numbers start again.
func drawTargeted(r *prng.Rand, f *FaultEvent, targets []int) {
	drawMaskTargeted(r, f, targets)
	f.After = crashMoments[r.Intn(len(crashMoments))]
	f.WindowNs, f.DurNs = r.Int63nRange(1000*msNs, 10_000*msNs), r.Int63nRange(msNs, 500*msNs)
	if f.After == moment.PendingHeld || f.After == moment.PendingHeldYoung {
		f.DurNs = msNs + f.DurNs%QuickRestartMaxNs
	}
}

// drawMaskTargeted draws a targeted fault's nodes: every target half the
// time, else one.
func drawMaskTargeted(r *prng.Rand, f *FaultEvent, targets []int) {
	if r.Intn(2) == 0 {
		for _, t := range targets {
			f.Mask |= 1 << uint(t)
		}
	} else {
		f.Mask = 1 << uint(targets[r.Intn(len(targets))])
	}
}

// Pause lengths (pauseafter): longer than an election (the others elect
// a leader and acknowledge writes meanwhile) and than a client's call
// timeout (1 s: a client that keeps its broker gives up on its calls to
// the paused leader and asks it again, after those writes).
const (
	pauseAfterMinNs = 1100 * msNs
	pauseAfterMaxNs = 1600 * msNs
)

// drawPauseAfter draws a pause's node (one target), moment
// (reads_confirmed three times in four: a leader about to serve the reads
// it holds; else pending_held, a leader holding proposals), window and
// length. The window is short (20 to 200 ms): the fault strikes only if
// its node confirms reads right then, so pauses, each of which stalls a
// leader's groups for over a second, stay sparse in the runs that draw
// them (with the targeted faults' usual windows and masks, 5 of the 30
// seeds of TestSeedsAllFaultsBounded acknowledged too few writes, against
// 3 without pauseafter).
func drawPauseAfter(r *prng.Rand, f *FaultEvent, targets []int) {
	f.Mask = 1 << uint(targets[r.Intn(len(targets))])
	f.After = moment.ReadsConfirmed
	if r.Intn(4) == 0 {
		f.After = moment.PendingHeld
	}
	f.WindowNs, f.DurNs = r.Int63nRange(20*msNs, 200*msNs), r.Int63nRange(pauseAfterMinNs, pauseAfterMaxNs)
}

// QuickRestartMaxNs bounds a quick restart's delay: a tenth of a broker's
// shortest election timeout (10 ticks of 10 ms).
const QuickRestartMaxNs = 10 * msNs

// applyMembership demotes the node now and makes it a voter again after
// dur_ns (0: at once), counting an effect when the operator's target
// changed.
func applyMembership(w *world.World, f FaultEvent) {
	if w.Operator() == nil || !w.Operator().SetVoter(f.Node, false) {
		return
	}
	w.Effect()
	w.At(w.NowNs()+max(f.DurNs, 1), uint64(f.Node), func() { w.Operator().SetVoter(f.Node, true) })
}

// progressWindowKind opens each progress window of a drawn plan (see
// Knobs.ProgressEveryNs): it must undo every transient fault.
const progressWindowKind = FaultCalm

// Pairs: a kind that undoes a condition (restart, resume, healnet, calm) has
// nothing to act on unless that condition holds, and a kind whose damage
// only a reopening store meets (corrupt, readerr: the store reads its file
// only when it opens) shows nothing while the broker runs on. Generate
// draws each such fault with a partner that makes it observable on its own,
// aimed at the same node (so neither is aimed at a role).

// pairBeforeMaxNs and pairAfterMaxNs bound how far a partner lies from its
// fault.
const (
	pairBeforeMaxNs = 1000 * msNs
	pairAfterMaxNs  = 100 * msNs
)

// pairAt is a partner's time: up to pairBeforeMaxNs before f (not before
// 0), or up to pairAfterMaxNs after it (within the fault phase of
// durationNs when f is).
func pairAt(r *prng.Rand, f FaultEvent, after bool, durationNs int64) int64 {
	if !after {
		return f.AtNs - min(f.AtNs, r.Int63nRange(msNs, pairBeforeMaxNs))
	}
	return min(f.AtNs+r.Int63nRange(msNs, pairAfterMaxNs), max(f.AtNs, durationNs-1))
}

// pairKillBefore kills a restart's node earlier, for good (dur_ns 0).
func pairKillBefore(r *prng.Rand, f FaultEvent, _ []int, durationNs int64) FaultEvent {
	return FaultEvent{AtNs: pairAt(r, f, false, durationNs), Kind: FaultKill, Node: f.Node, Torn: r.Intn(2) == 1}
}

// pairPauseBefore pauses a resume's node earlier, for good (dur_ns 0).
func pairPauseBefore(r *prng.Rand, f FaultEvent, _ []int, durationNs int64) FaultEvent {
	return FaultEvent{AtNs: pairAt(r, f, false, durationNs), Kind: FaultPause, Node: f.Node}
}

// pairDeleteBefore deletes the administered stream before a create.
func pairDeleteBefore(r *prng.Rand, f FaultEvent, _ []int, durationNs int64) FaultEvent {
	return FaultEvent{AtNs: pairAt(r, f, false, durationNs), Kind: FaultStreamDelete}
}

// pairCutBefore isolates a node before a healnet or a calm.
func pairCutBefore(r *prng.Rand, f FaultEvent, targets []int, durationNs int64) FaultEvent {
	return FaultEvent{AtNs: pairAt(r, f, false, durationNs), Kind: FaultIsolate, Node: targets[r.Intn(len(targets))]}
}

// pairCrashAfter crashes the node soon after (losing nothing synced) and
// boots it again, so its store reopens and reads the disk.
func pairCrashAfter(r *prng.Rand, f FaultEvent, _ []int, durationNs int64) FaultEvent {
	return FaultEvent{AtNs: pairAt(r, f, true, durationNs), Kind: FaultKill, Node: f.Node, DurNs: r.Int63nRange(msNs, 500*msNs)}
}

// drawPeer draws a peer among targets other than Node.
func drawPeer(r *prng.Rand, f *FaultEvent, targets []int) {
	f.Peer = targets[r.Intn(len(targets))]
	for f.Peer == f.Node {
		f.Peer = targets[r.Intn(len(targets))]
	}
}

// drawMask draws a non-empty mask of targets other than Node. A kind
// without Node leaves it zero, so node 0 is never in its mask: v1 drew it
// so, and seeds replay only if it still does.
func drawMask(r *prng.Rand, f *FaultEvent, targets []int) {
	for f.Mask == 0 {
		for _, t := range targets {
			if t != f.Node && r.Uint64()&1 == 1 {
				f.Mask |= 1 << uint(t)
			}
		}
	}
}

// drawChanceLow draws a chance of 1% to 20%.
func drawChanceLow(r *prng.Rand, f *FaultEvent, _ []int) {
	f.ChancePpm = r.Int63nRange(10_000, 200_000)
}

// checkPeerIsOther refuses a fault between a node and itself (a role
// resolves at apply time, and the fault is skipped if it hits the peer).
func checkPeerIsOther(f FaultEvent) error {
	if f.Node == f.Peer && f.Role == "" {
		return fmt.Errorf("between node %d and itself", f.Node)
	}
	return nil
}

// applyClockDrift sets the drift; Validate has already bounded it.
func applyClockDrift(w *world.World, f FaultEvent) {
	if err := w.ClockDrift(f.Node, f.DriftPpm); err != nil {
		panic(fmt.Errorf("validated clock drift %d ppm on node %d: %v", f.DriftPpm, f.Node, err))
	}
}
