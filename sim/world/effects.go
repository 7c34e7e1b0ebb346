package world

// This file counts what plan faults did: every applied fault counts under
// coverage.FaultFired, and a fault whose damage was observed later counts
// once under coverage.FaultEffect. What an observation is, is stated per
// kind by its table entry's effect line; the mechanisms (links, disks,
// processes) note the fault that set up each condition (its cause) and
// report the cause when the condition bites. Nothing here names a kind,
// and counting never touches the trace or a random stream, so it cannot
// change a run.

import (
	"github.com/felixsim/felixsim/coverage"
)

// faultCause names the plan fault that set up a condition: its index in
// World.faults plus one; zero is no plan fault (a harness call, the heal,
// the baseline).
type faultCause int32

// causeNone is a condition no plan fault set up.
const causeNone faultCause = 0

// Coverage returns the counts the world adds to (nil when not counting).
func (w *World) Coverage() *coverage.Counts { return w.cfg.Coverage }

// faultPoints are one plan fault's coverage points, named when the plan
// is applied.
type faultPoints struct {
	fired, effect coverage.Point
}

// notePlanFault names the coverage points of a plan fault of kind just
// added to w.faults.
func (w *World) notePlanFault(kind string) {
	w.points = append(w.points, faultPoints{fired: coverage.FaultFired(kind), effect: coverage.FaultEffect(kind)})
	w.effected = append(w.effected, false)
}

// countFired counts plan fault idx as applied.
func (w *World) countFired(idx int) { w.cfg.Coverage.Add(w.points[idx].fired) }

// effect counts cause's fault as having had an effect, once per fault.
func (w *World) effect(c faultCause) {
	if c == causeNone {
		return
	}
	idx := int(c) - 1
	if w.effected[idx] {
		return
	}
	w.effected[idx] = true
	w.cfg.Coverage.Add(w.points[idx].effect)
}

// FaultEffects lists, in plan order, whether each applied plan fault had an
// effect so far (false for faults skipped or not yet applied).
func (w *World) FaultEffects() []bool {
	return append([]bool(nil), w.effected...)
}

// linkCauses names the fault behind each faulted part of one link's
// behaviour.
type linkCauses struct {
	loss, duplicate, reorder, latency faultCause
}

// noteLinkCauses records cause against the parts of a link that changed
// from was to now.
func noteLinkCauses(c *linkCauses, was, now LinkConfig, cause faultCause) {
	if was.LossPpm != now.LossPpm {
		c.loss = cause
	}
	if was.DuplicatePpm != now.DuplicatePpm {
		c.duplicate = cause
	}
	if was.ReorderPpm != now.ReorderPpm || was.ReorderDelayMaxNs != now.ReorderDelayMaxNs {
		c.reorder = cause
	}
	if was.LatencyMaxNs != now.LatencyMaxNs || was.LatencyMinNs != now.LatencyMinNs {
		c.latency = cause
	}
}

// damage is one corrupted byte of a node's disk not yet read back.
type damage struct {
	name     string
	offBytes int64
	cause    faultCause
}

// DamageRecordsMax caps the corrupted bytes a disk remembers. Overflow
// policy: forget the oldest (its fault then counts no effect).
const DamageRecordsMax = 64

// noteDamage remembers a corrupted byte.
func (d *diskFaults) noteDamage(name string, offBytes int64, cause faultCause) {
	if len(d.damaged) >= DamageRecordsMax {
		d.damaged = d.damaged[1:]
	}
	d.damaged = append(d.damaged, damage{name: name, offBytes: offBytes, cause: cause})
}

// afterRead reports the damage a read of name at [off, off+n) met.
func (d *diskFaults) afterRead(name string, offBytes int64, n int) {
	for i := range d.damaged {
		dm := &d.damaged[i]
		if dm.name == name && dm.offBytes >= offBytes && dm.offBytes < offBytes+int64(n) {
			d.w.effect(dm.cause)
		}
	}
}

// forget drops the damage records keep refuses (the byte was overwritten
// or its file is gone).
func (d *diskFaults) forget(drop func(dm *damage) bool) {
	out := d.damaged[:0]
	for i := range d.damaged {
		if !drop(&d.damaged[i]) {
			out = append(out, d.damaged[i])
		}
	}
	d.damaged = out
}

// afterTruncate forgets damage past a truncated file's new end.
func (d *diskFaults) afterTruncate(name string, sizeBytes int64) {
	d.forget(func(dm *damage) bool { return dm.name == name && dm.offBytes >= sizeBytes })
}

// afterReset forgets damage in a file whose content is gone (created
// afresh, or removed).
func (d *diskFaults) afterReset(name string) {
	d.forget(func(dm *damage) bool { return dm.name == name })
}

// afterRename moves damage with its file; what newname held is gone.
func (d *diskFaults) afterRename(oldname, newname string) {
	d.forget(func(dm *damage) bool { return dm.name == newname })
	for i := range d.damaged {
		if d.damaged[i].name == oldname {
			d.damaged[i].name = newname
		}
	}
}

// afterCrash forgets damage the crash cut off (beyond a file's surviving
// length, or in a file that did not survive).
func (d *diskFaults) afterCrash() {
	mem := d.w.nodes[d.node].mem
	d.forget(func(dm *damage) bool { return memSize(mem, dm.name) <= dm.offBytes })
}
