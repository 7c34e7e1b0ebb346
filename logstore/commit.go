package logstore

import (
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/pingcap/failpoint"
)

// FailpointPanicAfterTableWrite names the crash hook inside Commit. Armed
// with "return(i)", i in 0..5, Commit panics after i of the five table
// frames (log, state, position, outbox, consumer group) were appended to the
// file, before the commit marker.
const FailpointPanicAfterTableWrite = "github.com/felixsim/felixsim/logstore/panicAfterTableWrite"

// ErrClosed marks a store used after Close.
var ErrClosed = errors.New("logstore: store is closed")

// Commit makes b durable atomically: after a crash at any point either all
// of it is present on reopen or none of it, and once Commit returns nil all
// of it is. It appends the transaction's frames, a commit marker, and fsyncs
// once; only then do the in-memory indexes change. A batch that is invalid
// or contradicts the store is refused with ErrInvalidBatch and nothing is
// written; an empty batch writes nothing and costs no fsync. A write or
// fsync error fails the store (ErrFailed) for good.
//
// The store copies the batch's rows and byte slices but keeps its raft
// entries, hard states and compaction snapshots, as raft's MemoryStorage
// does: the caller must not change them after Commit.
func (s *Store) Commit(b *Batch) error {
	if s.closed {
		return ErrClosed
	}
	if s.failed != nil {
		return fmt.Errorf("%w: commit refused: %v", ErrFailed, s.failed)
	}
	if err := validateShape(b); err != nil {
		return err
	}
	if b.Empty() {
		return nil
	}
	buf, raftFrame, tableFrames, err := appendTxn(s.encodeBuf[:0], b)
	if err != nil {
		return err
	}
	if cap(buf) <= encodeBufKeepBytesMax {
		s.encodeBuf = buf
	}
	owned := ownBatch(b, &s.ownRows)
	defer s.keepOwnRows(&owned)
	if invariantsOn {
		checkDecodesAsInstalled(raftFrame, tableFrames, &owned)
	}
	groups, err := s.plan(&owned)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrInvalidBatch, err)
	}
	if err := s.writeTxn(raftFrame, tableFrames); err != nil {
		clear(groups) // keep s.planGroups clear: install will not
		s.failed = err
		return fmt.Errorf("%w: %w", ErrFailed, err)
	}
	s.install(&owned, groups)
	return nil
}

// encodeBufKeepBytesMax is the largest encode buffer a store keeps for the
// next Commit; a batch that needed a larger one leaves it to the garbage
// collector, so one huge batch does not pin its buffer for the store's life.
const encodeBufKeepBytesMax = 1 << 20

// decodeFrames decodes the frames of one encoded transaction, which must
// decode: it was just encoded from a valid batch.
func decodeFrames(raftFrame []byte, tableFrames [tableCount][]byte) Batch {
	var frames []rawFrame
	for _, f := range append([][]byte{raftFrame}, tableFrames[:]...) {
		if len(f) == 0 {
			continue
		}
		kind, p, _, err := parseFrame(f, 0)
		if err != nil {
			panic(fmt.Sprintf("logstore: a frame just encoded does not parse: %v", err))
		}
		frames = append(frames, rawFrame{kind: kind, payload: p})
	}
	decoded, err := decodeTxn(frames, &Batch{})
	if err != nil {
		panic(fmt.Sprintf("logstore: a batch just encoded does not decode: %v", err))
	}
	return decoded
}

// checkDecodesAsInstalled panics, with both values, if what Commit installs
// differs from what replaying the frames it writes would install: memory
// must always equal what replay rebuilds.
func checkDecodesAsInstalled(raftFrame []byte, tableFrames [tableCount][]byte, owned *Batch) {
	decoded := decodeFrames(raftFrame, tableFrames)
	if d := sameBatch(owned, &decoded); d != "" {
		panic(fmt.Sprintf("logstore: Commit installs a batch that differs from what replay decodes (installed against decoded): %s", d))
	}
}

// writeTxn appends the transaction, its commit marker, and fsyncs once.
// Each table frame is its own write, so a process dying between two of them
// leaves real partial bytes in the file for recovery to discard.
func (s *Store) writeTxn(raftFrame []byte, tableFrames [tableCount][]byte) error {
	s.defects.hookBeforeTxn(len(tableFrames))
	t := txnWriter{s: s}
	t.write(raftFrame)
	s.hook(0)
	for i, f := range tableFrames {
		t.write(f)
		if s.defects.splitTables() {
			t.commit()
		}
		s.hook(i + 1)
	}
	t.commit()
	return t.err
}

// hook is the crash failpoint inside the transaction (DefectHookBeforeTxn
// evaluates it before instead: hookBeforeTxn).
func (s *Store) hook(writes int) {
	if !s.defects.hooksBeforeTxn() {
		crashHook(writes)
	}
}

// txnWriter appends frames and commit markers; the first error sticks.
type txnWriter struct {
	s          *Store
	crc        uint32
	frameCount uint32
	written    int64
	err        error
}

func (t *txnWriter) write(p []byte) {
	if t.err != nil || len(p) == 0 {
		return
	}
	if _, err := t.s.f.Write(p); err != nil {
		t.err = fmt.Errorf("append %d bytes to %s at byte %d: %w; the file's tail is unknown",
			len(p), t.s.name, t.s.sizeBytes+t.written, err)
		return
	}
	t.crc = crc32.Update(t.crc, castagnoli, p)
	t.frameCount++
	t.written += int64(len(p))
}

// commit appends the marker for the frames written since the last one and
// fsyncs.
func (t *txnWriter) commit() {
	if t.err != nil {
		return
	}
	s := t.s
	t.write(commitMarker{seq: s.seq + 1, frameCount: t.frameCount, txnCRC: t.crc}.appendSealed(s.markerBuf[:0]))
	if t.err != nil {
		return
	}
	if !s.defects.skipsFsync() {
		if err := s.f.Sync(); err != nil {
			t.err = fmt.Errorf("fsync %s: %w; whether transaction %d is durable is unknown", s.name, err, s.seq+1)
			return
		}
	}
	s.seq++
	s.sizeBytes += t.written
	t.crc, t.frameCount, t.written = 0, 0, 0
}

// crashHook panics when the crash failpoint is armed at writes.
func crashHook(writes int) {
	v, err := failpoint.Eval(FailpointPanicAfterTableWrite)
	if err != nil {
		return
	}
	if at, ok := v.(int); ok && at == writes {
		panic(fmt.Sprintf("logstore: failpoint %s: panic after table write %d", FailpointPanicAfterTableWrite, writes))
	}
}
