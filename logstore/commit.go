package logstore

import (
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/pingcap/failpoint"
)

// FailpointPanicAfterTableWrite names the crash hook inside Commit. Armed
// with "return(i)", i in 0..4, Commit panics after i of the four table
// frames (log, state, position, outbox) were appended to the file, before
// the commit marker.
const FailpointPanicAfterTableWrite = "github.com/felixsim/felixsim/logstore/panicAfterTableWrite"

// ErrClosed marks a store used after Close.
var ErrClosed = errors.New("logstore: store is closed")

// Commit makes b durable atomically: after a crash at any point either all
// of it is present on reopen or none of it, and once Commit returns nil all
// of it is. It appends the transaction's frames, a commit marker, and fsyncs
// once; only then do the in-memory indexes change. A batch that is invalid
// or contradicts the store is refused with ErrInvalidBatch and nothing is
// written. A write or fsync error fails the store (ErrFailed) for good.
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
	raftFrame, tableFrames, err := encodeTxn(b)
	if err != nil {
		return err
	}
	decoded, groups, err := s.check(raftFrame, tableFrames)
	if err != nil {
		return err
	}
	if err := s.writeTxn(raftFrame, tableFrames); err != nil {
		s.failed = err
		return fmt.Errorf("%w: %v", ErrFailed, err)
	}
	s.install(&decoded, groups)
	return nil
}

// check decodes the encoded frames (so memory holds exactly what replay
// will rebuild) and plans them against the store.
func (s *Store) check(raftFrame []byte, tableFrames [4][]byte) (Batch, []*group, error) {
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
	decoded, err := decodeTxn(frames)
	if err != nil {
		panic(fmt.Sprintf("logstore: a batch just encoded does not decode: %v", err))
	}
	groups, err := s.plan(&decoded)
	if err != nil {
		return Batch{}, nil, fmt.Errorf("%w: %w", ErrInvalidBatch, err)
	}
	return decoded, groups, nil
}

// writeTxn appends the transaction, its commit marker, and fsyncs once.
// Each table frame is its own write, so a process dying between two of them
// leaves real partial bytes in the file for recovery to discard.
func (s *Store) writeTxn(raftFrame []byte, tableFrames [4][]byte) error {
	crc, frameCount, written := uint32(0), uint32(0), int64(0)
	write := func(p []byte) error {
		if len(p) == 0 {
			return nil
		}
		if _, err := s.f.Write(p); err != nil {
			return fmt.Errorf("append %d bytes to %s at byte %d: %w; the file's tail is unknown", len(p), s.name, s.sizeBytes, err)
		}
		crc = crc32.Update(crc, castagnoli, p)
		frameCount++
		written += int64(len(p))
		return nil
	}
	if err := write(raftFrame); err != nil {
		return err
	}
	crashHook(0)
	for i, f := range tableFrames {
		if err := write(f); err != nil {
			return err
		}
		crashHook(i + 1)
	}
	marker := commitMarker{seq: s.seq + 1, frameCount: frameCount, txnCRC: crc}.frame()
	if err := write(marker); err != nil {
		return err
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("fsync %s: %w; whether transaction %d is durable is unknown", s.name, err, s.seq+1)
	}
	s.seq++
	s.sizeBytes += written
	return nil
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
