package logstore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// replayFile reads the whole file, replays its committed transactions and
// truncates a torn tail, noting in s.recovery what it found there.
func (s *Store) replayFile() error {
	s.recovery = Recovery{Kind: RecoveryClean}
	size, err := s.f.Size()
	if err != nil {
		return fmt.Errorf("logstore: size of %s: %w", s.name, err)
	}
	buf := make([]byte, size)
	if n, err := s.f.ReadAt(buf, 0); err != nil && !(errors.Is(err, io.EOF) && int64(n) == size) {
		return fmt.Errorf("logstore: read %s: %w", s.name, err)
	}
	if isHeaderPrefix(buf) || (!hasHeader(buf) && commitAfter(buf, -1) < 0) {
		// Created but torn before its first sync (a prefix of the header,
		// or zeros where a file system extended it): nothing was ever
		// committed, as no commit marker exists.
		s.f.Close()
		return s.create()
	}
	end, tornAt, err := s.replay(s.cutLastTxn(buf))
	s.replayScratch = replayScratch{} // a broker's store replays once
	if err != nil {
		return err
	}
	s.checkReplayBufferUnshared(buf)
	s.sizeBytes = int64(end)
	if end == len(buf) && s.sealMissing == nil {
		return nil
	}
	s.recovery = Recovery{Kind: RecoveryPartial, CutBytes: int64(len(buf) - end)}
	switch {
	case s.sealMissing != nil:
		s.recovery.Kind = RecoverySealRestored
	case tornAt >= 0:
		s.recovery.Kind = RecoveryTorn
	}
	if err := s.f.Truncate(int64(end)); err != nil {
		return fmt.Errorf("logstore: truncate torn tail of %s at byte %d: %w", s.name, end, err)
	}
	if s.sealMissing != nil {
		// Restore the last marker's copy, so the file is canonical again.
		if _, err := s.f.Write(s.sealMissing); err != nil {
			return fmt.Errorf("logstore: restore the last commit marker's copy in %s at byte %d: %w", s.name, end, err)
		}
		s.sizeBytes += int64(len(s.sealMissing))
		s.sealMissing = nil
	}
	if err := s.f.Sync(); err != nil {
		return fmt.Errorf("logstore: sync %s after truncating its torn tail at byte %d: %w", s.name, end, err)
	}
	return nil
}

// replay applies every committed transaction in buf and returns the offset
// just past the last one, and the offset of a frame the tail ends inside
// (-1 when the tail after the last transaction is whole frames, or none).
func (s *Store) replay(buf []byte) (end, tornAt int, err error) {
	if !hasHeader(buf) {
		return 0, -1, s.corrupt(0, "file header is not a felixsim logstore version %d header", fileVersion)
	}
	return s.replayFrom(buf, 0, len(headerFrame()))
}

// replayFrom is replay from off, the end of a transaction (or of the
// header) whose predecessors s has installed. buf holds the file's bytes
// from byte base on (a follower keeps only its tail): off and the offsets
// returned index buf, the errors name offsets in the file.
func (s *Store) replayFrom(buf []byte, base, off int) (end, tornAt int, err error) {
	committed := off
	sc := &s.replayScratch
	frames := sc.frames[:0]
	defer func() { sc.frames = clearFrames(frames) }()
	for off < len(buf) {
		kind, p, next, err := parseFrame(buf, off)
		if err != nil {
			if c := commitAfter(buf, off); c >= 0 {
				return 0, -1, s.corrupt(base+off, "%v, and a committed transaction follows at byte %d", err, base+c)
			}
			return committed, off, nil // torn tail
		}
		switch kind {
		case kindCommit:
			if err := s.replayTxn(buf, base, committed, off, frames, p, sc); err != nil {
				return 0, -1, err
			}
			copyEnd := next + (next - off)
			if copyEnd <= len(buf) && string(buf[next:copyEnd]) == string(buf[off:next]) {
				committed, frames, off = copyEnd, frames[:0], copyEnd
				continue
			}
			// The marker's copy is missing or damaged: the last transaction
			// torn between its copies, or corruption if any commit follows.
			if c := commitAfter(buf, next-1); c >= 0 {
				return 0, -1, s.corrupt(base+next, "the commit marker at byte %d lacks its intact copy, and a committed transaction follows at byte %d", base+off, base+c)
			}
			s.sealMissing = append([]byte(nil), buf[off:next]...)
			return next, -1, nil
		case kindHeader:
			return 0, -1, s.corrupt(base+off, "a second file header")
		default:
			frames = append(frames, rawFrame{kind: kind, off: base + off, payload: p})
		}
		off = next
	}
	return committed, -1, nil
}

// replayScratch is what replaying keeps from one transaction to the next,
// and (a Follower's store) from one Follow to the next: the frame list,
// the row slices decoding reuses and the scope names decoded, which later
// rows share.
type replayScratch struct {
	frames []rawFrame
	rows   Batch
	names  scopeNames
}

// scopeNamesMax caps the names a replay keeps to share: past it, a name
// not kept yet is allocated each time it is decoded.
const scopeNamesMax = 1024

// scopeNames are scope names decoded before, each kept once.
type scopeNames struct{ m map[string]string }

// intern returns p as a string, the one kept when p was decoded before.
func (n *scopeNames) intern(p []byte) string {
	if n == nil {
		return string(p)
	}
	if s, ok := n.m[string(p)]; ok {
		return s
	}
	s := string(p)
	if n.m == nil {
		n.m = map[string]string{}
	}
	if len(n.m) < scopeNamesMax {
		n.m[s] = s
	}
	return s
}

// clearFrames empties frames for reuse, dropping what they point at.
func clearFrames(frames []rawFrame) []rawFrame {
	clear(frames)
	return frames[:0]
}

// replayTxn checks a transaction's commit marker, decodes its frames and
// applies them. The decoded rows go into sc's slices, which it leaves
// holding the largest seen for the next transaction: install copies rows by
// value and keeps no slice of them.
func (s *Store) replayTxn(buf []byte, base, start, markerOff int, frames []rawFrame, marker []byte, sc *replayScratch) error {
	m, err := parseCommit(marker)
	if err != nil {
		return s.corrupt(base+markerOff, "%v", err)
	}
	if m.seq != s.seq+1 {
		return s.corrupt(base+markerOff, "transaction %d follows transaction %d", m.seq, s.seq)
	}
	if int(m.frameCount) != len(frames) {
		return s.corrupt(base+markerOff, "commit marker counts %d frames, the transaction has %d", m.frameCount, len(frames))
	}
	if got := crc32Of(buf[start:markerOff]); got != m.txnCRC {
		return s.corrupt(base+markerOff, "transaction checksum %08x, the marker says %08x", got, m.txnCRC)
	}
	b, err := decodeTxnSharing(frames, &sc.rows, &sc.names)
	if err != nil {
		return s.corrupt(base+start, "transaction %d: %v", m.seq, err)
	}
	if invariantsOn {
		checkDecodesAsFresh(frames, &b)
	}
	keepLargerRows(&sc.rows, &b)
	groups, err := s.plan(&b)
	if err != nil {
		return s.corrupt(base+start, "transaction %d contradicts the ones before it: %v", m.seq, err)
	}
	s.install(&b, groups)
	s.seq = m.seq
	return nil
}

// checkDecodesAsFresh panics, with both values, if a transaction decoded
// into reused row slices differs from its decoding into new ones: no field
// of an earlier transaction's rows may survive into a later one.
func checkDecodesAsFresh(frames []rawFrame, b *Batch) {
	fresh, err := decodeTxn(frames, &Batch{})
	if err != nil {
		panic(fmt.Sprintf("logstore: a transaction decodes into reused rows but not into new ones: %v", err))
	}
	if d := sameBatch(b, &fresh); d != "" {
		panic(fmt.Sprintf("logstore: a transaction decodes differently into reused rows than into new ones (reused against new): %s", d))
	}
}

// keepLargerRows keeps in rows each of b's row slices whose array is
// larger than the one rows holds, up to ownRowsKeepMax rows (a rewritten
// file's first transaction, which holds every row, is not kept).
func keepLargerRows(rows, b *Batch) {
	rows.Groups = largerRows(rows.Groups, b.Groups)
	rows.Log = largerRows(rows.Log, b.Log)
	rows.State = largerRows(rows.State, b.State)
	rows.Positions = largerRows(rows.Positions, b.Positions)
	rows.Outbox = largerRows(rows.Outbox, b.Outbox)
	rows.ConsumerGroups = largerRows(rows.ConsumerGroups, b.ConsumerGroups)
}

func largerRows[R any](kept, used []R) []R {
	if cap(used) > cap(kept) && cap(used) <= ownRowsKeepMax {
		return used[:0]
	}
	return kept
}

// checkReplayBufferUnshared holds that nothing replay installed refers to
// the buffer the file was read into (decoding copies every byte it
// keeps), so the buffer goes once Open returns instead of staying alive,
// a second copy of the file, for as long as a row refers to it: built
// with -tags invariants, Open scribbles over the buffer and panics if
// that changed what the store holds.
func (s *Store) checkReplayBufferUnshared(buf []byte) {
	if invariantsOn {
		before := s.contentBytes()
		full := buf[:cap(buf)]
		for i := range full {
			full[i] ^= 0xa5
		}
		if after := s.contentBytes(); !bytes.Equal(before, after) {
			panic(fmt.Sprintf("logstore: the store replayed from %s shares bytes with the buffer it read: its content encodes as %d bytes before scribbling over the buffer, differently as %d bytes after",
				s.name, len(before), len(after)))
		}
	}
}

// contentBytes encodes everything the store holds as a Rewrite would,
// without markers: two stores hold the same content exactly when their
// contentBytes are equal.
func (s *Store) contentBytes() []byte {
	var out []byte
	err := s.eachContentBatch(func(b *Batch) error {
		var err error
		out, _, _, err = appendTxn(out, b)
		return err
	})
	if err != nil {
		panic(fmt.Sprintf("logstore: the store's content does not encode: %v", err))
	}
	return out
}

func (s *Store) corrupt(off int, format string, args ...any) error {
	return fmt.Errorf("%w: %s at byte %d: %s", ErrCorrupt, s.name, off, fmt.Sprintf(format, args...))
}

// hasHeader reports whether buf starts with the file header.
func hasHeader(buf []byte) bool {
	h := headerFrame()
	return len(buf) >= len(h) && string(buf[:len(h)]) == string(h)
}
