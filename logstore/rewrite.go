package logstore

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"sort"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/vfs"
)

// rewriteSuffix names the file a rewrite builds before renaming it over the
// store file; Open removes a leftover one.
const rewriteSuffix = ".rewrite"

// rewriteTxnBytesMax caps the estimated size of one transaction of a
// rewritten file, well under frameLenMax: rows beyond it start a new one.
const rewriteTxnBytesMax = 16 << 20

// Stats describes the store file.
type Stats struct {
	// FileBytes is the file's length up to its last committed transaction.
	FileBytes int64
	// Transactions is how many committed transactions the file holds.
	Transactions uint64
}

// Stats returns the store file's size and transaction count, so a caller
// can decide when to Rewrite.
func (s *Store) Stats() Stats { return Stats{FileBytes: s.sizeBytes, Transactions: s.seq} }

// Rewrite replaces the store file by one holding only the current content
// (superseded raft entries, hard states, state values and delivered outbox
// entries are gone): it writes a new file, fsyncs it, renames it over the
// old one and fsyncs the directory. A crash at any point leaves the old file
// or the new one, with equal content. A failure before the rename leaves the
// store as it was; a failure after it fails the store (ErrFailed).
func (s *Store) Rewrite() error {
	if s.closed {
		return ErrClosed
	}
	if s.failed != nil {
		return fmt.Errorf("%w: rewrite refused: %v", ErrFailed, s.failed)
	}
	tmp := s.name + rewriteSuffix
	f, seq, size, err := s.writeRewrite(tmp)
	if err != nil {
		if f != nil {
			f.Close()
		}
		s.fs.Remove(tmp) // best effort: Open removes it too
		return fmt.Errorf("logstore: rewrite of %s refused, the store is unchanged: %w", s.name, err)
	}
	if err := s.fs.Rename(tmp, s.name); err != nil {
		f.Close()
		s.fs.Remove(tmp)
		return fmt.Errorf("logstore: rewrite of %s refused, the store is unchanged: rename: %w", s.name, err)
	}
	old := s.f
	s.f, s.seq, s.sizeBytes = f, seq, size
	old.Close()
	if err := s.fs.SyncDir(s.dir); err != nil {
		s.failed = fmt.Errorf("sync directory %s after renaming a rewritten %s over it: %w", s.dir, s.name, err)
		return fmt.Errorf("%w: %w", ErrFailed, s.failed)
	}
	return nil
}

// writeRewrite writes the current content to name as a fresh store file
// and fsyncs it; it returns the open file, its transaction count and size.
func (s *Store) writeRewrite(name string) (vfs.File, uint64, int64, error) {
	f, err := s.fs.Create(name)
	if err != nil {
		return nil, 0, 0, err
	}
	// The file's encoding is built in the buffer of the last rewrite, which
	// a Write copies out: growing a fresh one by append re-copied the whole
	// content several times over.
	buf := append(s.rewriteBuf[:0], headerFrame()...)
	defer func() { s.rewriteBuf = buf[:0] }()
	seq := uint64(0)
	for _, b := range s.contentBatches() {
		start := len(buf)
		var raftFrame []byte
		var tableFrames [tableCount][]byte
		var err error
		if buf, raftFrame, tableFrames, err = appendTxn(buf, b); err != nil {
			return f, 0, 0, err
		}
		count := uint32(0)
		if len(raftFrame) > 0 {
			count++
		}
		for _, t := range tableFrames {
			if len(t) > 0 {
				count++
			}
		}
		seq++
		buf = commitMarker{seq: seq, frameCount: count, txnCRC: crc32Of(buf[start:])}.appendSealed(buf)
	}
	if _, err := f.Write(buf); err != nil {
		return f, 0, 0, err
	}
	if s.defects&DefectSkipFsync == 0 {
		if err := f.Sync(); err != nil {
			return f, 0, 0, err
		}
	}
	return f, seq, int64(len(buf)), nil
}

// contentBatches expresses everything the store holds as batches that,
// committed in order to an empty store, rebuild it exactly.
func (s *Store) contentBatches() []*Batch {
	var out []*Batch
	if ids := s.Groups(); len(ids) > 0 {
		b := &Batch{}
		for _, id := range ids {
			g := s.groups[id]
			b.Groups = append(b.Groups, GroupWrite{Group: id, Snapshot: g.snapshot,
				Entries: slices.Clone(g.ents[1:]), HardState: g.hardState, AppliedIndex: g.applied})
		}
		out = append(out, b)
	}
	cur, curBytes := &Batch{}, 0
	add := func(n int) {
		curBytes += n
		if curBytes > rewriteTxnBytesMax {
			out, cur, curBytes = append(out, cur), &Batch{}, n
		}
	}
	for _, sc := range s.Scopes() {
		for _, e := range s.LogScan(sc, 0, 0) {
			add(wireRecordBytes(&e.Record))
			cur.Log = append(cur.Log, LogRow{Scope: sc, Offset: e.Offset, Record: e.Record})
		}
		for _, r := range s.StateScan(sc) {
			add(len(r.Key) + len(r.Value) + 64)
			cur.State = append(cur.State, r)
		}
		if p, ok := s.PositionGet(sc); ok {
			add(64)
			cur.Positions = append(cur.Positions, PositionRow{Scope: sc, Position: p})
		}
		for _, r := range s.OutboxScan(sc) {
			add(len(r.Intent.Data) + 64)
			cur.Outbox = append(cur.Outbox, r)
		}
		for _, g := range s.ConsumerGroupScan(sc) {
			add(len(g.Name) + 20*len(g.Leases) + 64)
			cur.ConsumerGroups = append(cur.ConsumerGroups, ConsumerGroupRow{Scope: sc, Group: g})
		}
	}
	if !cur.Empty() {
		out = append(out, cur)
	}
	return out
}

func wireRecordBytes(r *felix.Record) int {
	n := len(r.Payload) + 64
	for _, op := range r.Ops {
		n += len(op.Key) + len(op.Value) + 16
	}
	return n
}

// removeRewriteLeftover deletes the file of a rewrite that crashed before
// its rename.
func (s *Store) removeRewriteLeftover() error {
	names, err := s.fs.List(s.dir)
	if err != nil {
		return fmt.Errorf("logstore: list %s: %w", s.dir, err)
	}
	want := path.Base(s.name) + rewriteSuffix
	if i := sort.SearchStrings(names, want); i == len(names) || names[i] != want {
		return nil
	}
	if err := s.fs.Remove(s.name + rewriteSuffix); err != nil && !errors.Is(err, vfs.ErrNotExist) {
		return fmt.Errorf("logstore: remove the leftover of a crashed rewrite: %w", err)
	}
	if err := s.fs.SyncDir(s.dir); err != nil {
		return fmt.Errorf("logstore: sync directory %s: %w", s.dir, err)
	}
	return nil
}
