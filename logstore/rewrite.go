package logstore

import (
	"errors"
	"fmt"
	"path"
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
	buf, seq, err := s.rewrittenFile(s.sizeBytes)
	if err != nil {
		return f, 0, 0, err
	}
	if _, err := f.Write(buf); err != nil {
		return f, 0, 0, err
	}
	if !s.defects.skipsFsync() {
		if err := f.Sync(); err != nil {
			return f, 0, 0, err
		}
	}
	return f, seq, int64(len(buf)), nil
}

// rewrittenFile encodes the store's current content as a rewritten file,
// header and sealed transactions, and returns it with its transaction
// count. It is built in one buffer sized from the file, about the
// content's size or more (growing one by append re-copied the whole
// content several times over), which the caller lets go once written:
// kept for the next rewrite, it held a second copy of the file for the
// store's whole life. The same content always encodes the same; sizeHint
// is the buffer's first size.
func (s *Store) rewrittenFile(sizeHint int64) ([]byte, uint64, error) {
	buf := append(make([]byte, 0, max(sizeHint, int64(len(headerFrame())))), headerFrame()...)
	seq := uint64(0)
	err := s.eachContentBatch(func(b *Batch) error {
		start := len(buf)
		var raftFrame []byte
		var tableFrames [tableCount][]byte
		var err error
		if buf, raftFrame, tableFrames, err = appendTxn(buf, b); err != nil {
			return err
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
		return nil
	})
	return buf, seq, err
}

// eachContentBatch hands fn, in order, batches that, committed in order to
// an empty store, rebuild it exactly: the raft groups' batch, then every
// table's rows scope by scope, a new batch whenever the estimated size
// passes rewriteTxnBytesMax. Rows go straight from the tables into one
// batch whose slices, sized from the row counts, every later batch reuses:
// fn must not keep the batch. The first error of fn stops the walk.
func (s *Store) eachContentBatch(fn func(*Batch) error) error {
	if ids := s.Groups(); len(ids) > 0 {
		b := &Batch{Groups: make([]GroupWrite, 0, len(ids))}
		for _, id := range ids {
			g := s.groups[id]
			b.Groups = append(b.Groups, GroupWrite{Group: id, Snapshot: g.snapshot,
				Entries: g.ents[1:], HardState: g.hardState, AppliedIndex: g.applied})
		}
		if err := fn(b); err != nil {
			return err
		}
	}
	c := contentBatcher{fn: fn}
	n := s.tab.counts
	c.cur = Batch{Log: make([]LogRow, 0, n.Log), State: make([]StateRow, 0, n.State),
		Positions: make([]PositionRow, 0, n.Position), Outbox: make([]OutboxRow, 0, n.Outbox),
		ConsumerGroups: make([]ConsumerGroupRow, 0, n.ConsumerGroup)}
	var offsets []uint64
	for _, sc := range s.Scopes() {
		m := s.tab.log[sc]
		offsets = logOffsets(offsets[:0], m, 0)
		for _, o := range offsets {
			r := m[o]
			c.add(wireRecordBytes(&r))
			c.cur.Log = append(c.cur.Log, LogRow{Scope: sc, Offset: o, Record: r})
		}
		for _, r := range s.StateScan(sc) {
			c.add(len(r.Key) + len(r.Value) + 64)
			c.cur.State = append(c.cur.State, r)
		}
		if p, ok := s.PositionGet(sc); ok {
			c.add(64)
			c.cur.Positions = append(c.cur.Positions, PositionRow{Scope: sc, Position: p})
		}
		for _, r := range s.OutboxScan(sc) {
			c.add(len(r.Intent.Data) + 64)
			c.cur.Outbox = append(c.cur.Outbox, r)
		}
		for _, g := range s.ConsumerGroupScan(sc) {
			c.add(len(g.Name) + 20*len(g.Leases) + 64)
			c.cur.ConsumerGroups = append(c.cur.ConsumerGroups, ConsumerGroupRow{Scope: sc, Group: g})
		}
	}
	if !c.cur.Empty() {
		c.flush()
	}
	return c.err
}

// contentBatcher cuts a rewrite's rows into batches of at most about
// rewriteTxnBytesMax estimated bytes, handing each to fn when it is full.
type contentBatcher struct {
	cur      Batch
	curBytes int
	fn       func(*Batch) error
	// err is fn's first error; later batches are not handed on.
	err error
}

// add counts a row of n estimated bytes about to join the batch, handing
// the batch so far on first if the row would take it past
// rewriteTxnBytesMax (even an empty batch, as a row larger than the cap
// starts a transaction of its own).
func (c *contentBatcher) add(n int) {
	c.curBytes += n
	if c.curBytes > rewriteTxnBytesMax {
		c.flush()
		c.curBytes = n
	}
}

// flush hands the batch on and empties it, keeping its slices.
func (c *contentBatcher) flush() {
	if c.err == nil {
		c.err = c.fn(&c.cur)
	}
	c.cur.Reset()
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
