package world

import (
	"fmt"
	"sort"

	"github.com/felixsim/felixsim/sim/prng"
	"github.com/felixsim/felixsim/vfs"
)

// diskFaults is one node's disk-fault injector: error rates for fsync and
// reads, a per-operation latency charged to the running handler, and an
// armed crash at a disk operation (see CrashAtDiskOp); and, for counting
// effects, the fault behind each setting and the corrupted bytes not yet
// read back.
type diskFaults struct {
	w    *World
	node int
	diskRates
	by diskCauses
	// damaged are corrupted bytes, oldest first.
	// Invariant: len(damaged) <= DamageRecordsMax.
	damaged []damage
}

// diskRates are the disk's fault settings.
type diskRates struct {
	fsyncErrPpm  int64
	readErrPpm   int64
	latencyMaxNs int64
	// crashOpsLeft counts down the node's crash-point operations to the
	// armed crash (0: none armed); crashModel and crashRestartNs are its
	// model and restart delay.
	crashOpsLeft   int64
	crashModel     CrashModel
	crashRestartNs int64
}

// diskCauses names the fault behind each of diskRates.
type diskCauses struct {
	fsyncErr, readErr, latency, crash faultCause
}

var _ Injector = (*diskFaults)(nil)
var _ fsObserver = (*diskFaults)(nil)

// editDisk changes node id's disk fault settings; the fault being applied
// becomes the cause of each setting that changed.
func (w *World) editDisk(id int, edit func(r *diskRates)) {
	d := w.node(id).disk
	was := d.diskRates
	edit(&d.diskRates)
	if d.fsyncErrPpm != was.fsyncErrPpm {
		d.by.fsyncErr = w.cause
	}
	if d.readErrPpm != was.readErrPpm {
		d.by.readErr = w.cause
	}
	if d.latencyMaxNs != was.latencyMaxNs {
		d.by.latency = w.cause
	}
}

// diskDraw is the generator of node id's next disk draw (its keyed disk
// stream at the current event's time).
func (w *World) diskDraw(id int) *prng.Rand { return w.diskDraws[id].at(w.nowNs) }

// Before implements Injector. Random draws happen only for enabled faults,
// and each from the node's keyed disk stream, so a plan without disk
// faults draws nothing and one node's disk operations move no other's.
func (d *diskFaults) Before(op Op, name string) error {
	w := d.w
	if u := w.unwinding; u != nil && u.node == d.node {
		return fmt.Errorf("%w: %s of %s on node %d refused: the node died at a disk operation", ErrInjected, op, name, d.node)
	}
	if d.latencyMaxNs > 0 && w.curNode == d.node {
		delayNs := w.diskDraw(d.node).Int63nRange(0, d.latencyMaxNs)
		w.busyNs += delayNs
		if delayNs > 0 {
			w.effect(d.by.latency)
		}
	}
	if d.crashOpsLeft > 0 && w.curNode == d.node && op.crashPoint() {
		if d.crashOpsLeft--; d.crashOpsLeft == 0 {
			w.crashNow(d, op, name)
		}
	}
	switch op {
	case OpSync, OpSyncDir:
		if d.fsyncErrPpm > 0 && w.diskDraw(d.node).ChancePpm(d.fsyncErrPpm) {
			w.effect(d.by.fsyncErr)
			return fmt.Errorf("%w: %s of %s on node %d failed by the fault plan (nothing synced)", ErrInjected, op, name, d.node)
		}
	case OpRead:
		if d.readErrPpm > 0 && w.diskDraw(d.node).ChancePpm(d.readErrPpm) {
			w.effect(d.by.readErr)
			return fmt.Errorf("%w: read of %s on node %d failed by the fault plan", ErrInjected, name, d.node)
		}
	}
	return nil
}

func (d *diskFaults) heal() { d.diskRates, d.by = diskRates{}, diskCauses{} }

// CorruptSector flips one bit of one byte in a file of node id, in both its
// current and its synced content, as a bad sector would; a later read sees
// the flipped bit. The file, sector, byte and bit come from the node's disk
// stream.
// It reports the file and offset hit, or ok=false if the disk holds no data.
func (w *World) CorruptSector(id int) (name string, offsetBytes int64, ok bool) {
	mem := w.node(id).mem
	type sized struct {
		name  string
		bytes int64
	}
	var files []sized
	for _, nm := range mem.Names() {
		if b := memSize(mem, nm); b > 0 {
			files = append(files, sized{nm, b})
		}
	}
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	if len(files) == 0 {
		return "", 0, false
	}
	r := w.diskDraw(id)
	f := files[r.Intn(len(files))]
	sectors := (f.bytes + vfs.SectorBytes - 1) / vfs.SectorBytes
	sector := r.Int63nRange(0, sectors-1)
	lo := sector * vfs.SectorBytes
	hi := min(lo+vfs.SectorBytes, f.bytes) - 1
	off := r.Int63nRange(lo, hi)
	mask := byte(1) << r.Intn(8)
	if err := mem.CorruptByte(f.name, off, mask); err != nil {
		panic(fmt.Sprintf("sim: corrupting %s at %d of %d bytes: %v", f.name, off, f.bytes, err))
	}
	w.node(id).disk.noteDamage(f.name, off, w.cause)
	return f.name, off, true
}

func memSize(mem *vfs.Mem, name string) int64 {
	f, err := mem.Open(name)
	if err != nil {
		return 0
	}
	defer f.Close()
	b, err := f.Size()
	if err != nil {
		return 0
	}
	return b
}

// ReplaceDisk kills node id (if it runs; unsynced writes are lost with
// the disk anyway) and gives it a new, empty disk with the old one's
// fault settings: everything the node stored is gone. The node boots on
// the new disk restartAfterNs later (at least 1 ns), and the world's
// Operator, if any, is told first (a broker that lost its store must
// rejoin under a new identity).
func (w *World) ReplaceDisk(id int, restartAfterNs int64) {
	n := w.node(id)
	w.Kill(id, false, 0)
	w.trace(EvDiskReplace, int32(id), -1, n.inc)
	n.mem = vfs.NewMem()
	n.fs = NewFaultFS(n.mem, n.disk)
	if w.cfg.Operator != nil {
		w.cfg.Operator.DiskReplaced(id)
	}
	w.q.push(event{atNs: w.nowNs + max(restartAfterNs, 1), kind: EvBoot, node: int32(id), peer: -1, gen: n.inc})
}

// SetDiskFaults sets node id's fsync and read error rates (ppm) and its
// per-operation latency bound.
func (w *World) SetDiskFaults(id int, fsyncErrPpm, readErrPpm, latencyMaxNs int64) {
	w.editDisk(id, func(r *diskRates) {
		r.fsyncErrPpm, r.readErrPpm, r.latencyMaxNs = fsyncErrPpm, readErrPpm, latencyMaxNs
	})
}

// SetFsyncErrPpm sets node id's fsync error rate (ppm); the fault being
// applied becomes its cause if it changed.
func (w *World) SetFsyncErrPpm(id int, fsyncErrPpm int64) {
	w.editDisk(id, func(r *diskRates) { r.fsyncErrPpm = fsyncErrPpm })
}

// SetReadErrPpm sets node id's read error rate (ppm); the fault being
// applied becomes its cause if it changed.
func (w *World) SetReadErrPpm(id int, readErrPpm int64) {
	w.editDisk(id, func(r *diskRates) { r.readErrPpm = readErrPpm })
}

// SetDiskLatencyMaxNs sets node id's per-operation disk latency bound;
// the fault being applied becomes its cause if it changed.
func (w *World) SetDiskLatencyMaxNs(id int, latencyMaxNs int64) {
	w.editDisk(id, func(r *diskRates) { r.latencyMaxNs = latencyMaxNs })
}
