package workload

import (
	"bytes"
	"fmt"
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
// Invariant: the file holds exactly ops 1..n in id order (n its lines),
// perScope[t] of them tagged t, each of scope scopes[t]; once it has
// failed nothing more is written (the recorder keeps the rest in memory).
type historySpill struct {
	// dir is where the file is made ("" is os.TempDir).
	dir  string
	file *vfs.LineFile
	line []byte
	// scopes are the scopes seen, by tag; tags finds a scope's tag (looked
	// up, never ranged over); perScope counts each tag's operations.
	scopes   []felix.Scope
	tags     map[felix.Scope]int
	perScope []int
}

// failed is the spill's lasting error (nil while it holds what was
// written).
func (s *historySpill) failed() error {
	if s.file == nil {
		return nil
	}
	return s.file.Err()
}

// n is how many operations the file holds.
func (s *historySpill) n() int {
	if s.file == nil {
		return 0
	}
	return s.file.Lines()
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
	if s.file == nil {
		s.file = vfs.NewLineFile("history spill", s.dir, "felixsim-history-*.ndjson", spillBufferBytes, properties.HistoryLineLenMax)
	}
	for i := range ops {
		if err := s.writeOne(&ops[i]); err != nil {
			return s.file.Fail(err)
		}
	}
	return s.file.Err()
}

// writeOne appends one operation, tagged with its scope.
func (s *historySpill) writeOne(op *properties.HistoryOp) error {
	if err := s.file.Err(); err != nil {
		return err
	}
	if want := uint64(s.file.Lines() + 1); op.ID != want {
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
	if err := s.file.Append(s.line); err != nil {
		return err
	}
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
	ops := make([]properties.HistoryOp, 0, max(s.n(), capOps))
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
	if s.file == nil {
		return nil
	}
	seen := make([]int, len(s.scopes))
	err := s.file.Scan(func(n int, line []byte) error { return s.scanLine(line, n, seen, take, keep) })
	if err != nil {
		return err
	}
	for t := range seen {
		if seen[t] != s.perScope[t] {
			return fmt.Errorf("history spill: %s holds %d operations of %s, %d were written", s.file.File().Name(), seen[t], s.scopes[t], s.perScope[t])
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
		return fmt.Errorf("no scope tag of the %d written", len(s.scopes))
	}
	seen[t]++
	if !take(t) {
		return nil
	}
	op, err := properties.ParseHistoryLine(b[sp+1:])
	switch {
	case err != nil:
		return err
	case op.ID != uint64(n):
		return fmt.Errorf("holds op %d, want op %d", op.ID, n)
	case op.Scope != s.scopes[t]:
		return fmt.Errorf("holds op %d of %s under the tag of %s", op.ID, op.Scope, s.scopes[t])
	}
	keep(op)
	return nil
}

// close releases the file.
func (s *historySpill) close() error {
	if s.file == nil {
		return nil
	}
	return s.file.Close()
}
