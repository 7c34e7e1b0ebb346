package workload

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/vfs"
)

// historySpill is where the recorder streams the operations it no longer
// holds: a scratch file (vfs.Scratch: unlinked as soon as it is made, so
// nothing is left behind however the process ends), one line per
// operation in id order, each the operation's scope tag (its index among
// the scopes the file has seen), a space, and the operation in the
// history encoding. The tag lets a reader take one scope's operations
// without decoding the others' (readScopes): the end checks judge the
// history a scope at a time. During a run the file is only appended to.
// It touches no simulated state: where the history waits changes no run.
//
// Invariant: the file holds exactly ops 1..n in id order, perScope[t] of
// them tagged t, each of scope scopes[t]; once err is set nothing more is
// written (the recorder keeps the rest in memory).
type historySpill struct {
	// dir is where the file is made ("" is os.TempDir).
	dir  string
	f    vfs.File
	w    *bufio.Writer
	line []byte
	n    int
	err  error
	// scopes are the scopes seen, by tag; tags finds a scope's tag (looked
	// up, never ranged over); perScope counts each tag's operations.
	scopes   []felix.Scope
	tags     map[felix.Scope]int
	perScope []int
}

// spillBufferBytes is the spill's write buffer: ops are written a block at
// a time, so it costs one write call per few hundred operations.
const spillBufferBytes = 256 << 10

// spillScopesMax caps the scopes a spill file tags; a run has a few dozen
// (tenants x streams x shards). Overflow policy: the write fails and the
// run has no verdict (the history could not be kept).
const spillScopesMax = 1 << 16

// write appends ops (the next ones by id) to the file, creating it first.
// A failure is remembered and reported by every later call and by read.
func (s *historySpill) write(ops []properties.HistoryOp) error {
	if s.err != nil {
		return s.err
	}
	if s.f == nil {
		f, err := vfs.Scratch(s.dir, "felixsim-history-*.ndjson")
		if err != nil {
			s.err = fmt.Errorf("history spill: %w", err)
			return s.err
		}
		s.f, s.w = f, bufio.NewWriterSize(f, spillBufferBytes)
	}
	for i := range ops {
		if err := s.writeOne(&ops[i]); err != nil {
			s.err = err
			return err
		}
	}
	return nil
}

// writeOne appends one operation, tagged with its scope.
func (s *historySpill) writeOne(op *properties.HistoryOp) error {
	if want := uint64(s.n + 1); op.ID != want {
		return fmt.Errorf("history spill: op id %d written where id %d belongs", op.ID, want)
	}
	t, err := s.tag(op.Scope)
	if err != nil {
		return err
	}
	s.line = append(strconv.AppendInt(s.line[:0], int64(t), 10), ' ')
	if s.line, err = properties.AppendHistoryLine(s.line, op); err != nil {
		return fmt.Errorf("history spill: op %d: %w", op.ID, err)
	}
	if _, err := s.w.Write(s.line); err != nil {
		return fmt.Errorf("history spill: write %s: %w", s.f.Name(), err)
	}
	s.n++
	s.perScope[t]++
	return nil
}

// tag is scope's tag, given one the first time it is seen.
func (s *historySpill) tag(scope felix.Scope) (int, error) {
	if t, ok := s.tags[scope]; ok {
		return t, nil
	}
	if len(s.scopes) == spillScopesMax {
		return 0, fmt.Errorf("history spill: scope %s refused: the file tags at most %d scopes", scope, spillScopesMax)
	}
	if s.tags == nil {
		s.tags = map[felix.Scope]int{}
	}
	s.tags[scope] = len(s.scopes)
	s.scopes = append(s.scopes, scope)
	s.perScope = append(s.perScope, 0)
	return len(s.scopes) - 1, nil
}

// read returns every spilled operation in id order, reading the file from
// its start, in a slice with room for capOps (the whole history, so the
// held operations append without a copy); the file stays open for more.
func (s *historySpill) read(capOps int) ([]properties.HistoryOp, error) {
	ops := make([]properties.HistoryOp, 0, max(s.n, capOps))
	err := s.scan(func(int) bool { return true }, func(op properties.HistoryOp) { ops = append(ops, op) })
	return ops, err
}

// readScopes returns the spilled operations of scopes in id order,
// decoding no other scope's; scopes the file has not seen hold none.
func (s *historySpill) readScopes(scopes []felix.Scope) ([]properties.HistoryOp, error) {
	want := make([]bool, len(s.scopes))
	n := 0
	for _, sc := range scopes {
		if t, ok := s.tags[sc]; ok && !want[t] {
			want[t] = true
			n += s.perScope[t]
		}
	}
	ops := make([]properties.HistoryOp, 0, n)
	err := s.scan(func(t int) bool { return want[t] }, func(op properties.HistoryOp) { ops = append(ops, op) })
	return ops, err
}

// scan reads the whole file, checking every line's tag, and decodes the
// operations of the tags take wants, in id order, into keep. The file
// must hold what was written: n lines, each tag's count, ids 1..n.
func (s *historySpill) scan(take func(tag int) bool, keep func(properties.HistoryOp)) error {
	if s.err != nil {
		return s.err
	}
	if s.f == nil {
		return nil
	}
	if err := s.w.Flush(); err != nil {
		s.err = fmt.Errorf("history spill: write %s: %w", s.f.Name(), err)
		return s.err
	}
	size, err := s.f.Size()
	if err != nil {
		return fmt.Errorf("history spill: %s: %w", s.f.Name(), err)
	}
	seen := make([]int, len(s.scopes))
	sc := bufio.NewScanner(io.NewSectionReader(s.f, 0, size))
	sc.Buffer(make([]byte, 0, 64<<10), properties.HistoryLineLenMax)
	lines := 0
	for sc.Scan() {
		lines++
		if err := s.scanLine(sc.Bytes(), lines, seen, take, keep); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("history spill: read %s: %w", s.f.Name(), err)
	}
	if lines != s.n {
		return fmt.Errorf("history spill: %s holds %d operations, %d were written", s.f.Name(), lines, s.n)
	}
	for t := range seen {
		if seen[t] != s.perScope[t] {
			return fmt.Errorf("history spill: %s holds %d operations of %s, %d were written", s.f.Name(), seen[t], s.scopes[t], s.perScope[t])
		}
	}
	return nil
}

// scanLine checks line number n (its tag, and when take wants it, its
// operation: decoded, id n, of its tag's scope) and keeps what take wants.
func (s *historySpill) scanLine(b []byte, n int, seen []int, take func(int) bool, keep func(properties.HistoryOp)) error {
	sp := bytes.IndexByte(b, ' ')
	t, err := strconv.Atoi(string(b[:max(sp, 0)]))
	if sp < 0 || err != nil || t < 0 || t >= len(s.scopes) {
		return fmt.Errorf("history spill: %s line %d has no scope tag of the %d written", s.f.Name(), n, len(s.scopes))
	}
	seen[t]++
	if !take(t) {
		return nil
	}
	op, err := properties.ParseHistoryLine(b[sp+1:])
	switch {
	case err != nil:
		return fmt.Errorf("history spill: %s line %d: %w", s.f.Name(), n, err)
	case op.ID != uint64(n):
		return fmt.Errorf("history spill: %s line %d holds op %d, want op %d", s.f.Name(), n, op.ID, n)
	case op.Scope != s.scopes[t]:
		return fmt.Errorf("history spill: %s line %d holds op %d of %s under the tag of %s", s.f.Name(), n, op.ID, op.Scope, s.scopes[t])
	}
	keep(op)
	return nil
}

// close releases the file.
func (s *historySpill) close() error {
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f, s.w = nil, nil
	return err
}
