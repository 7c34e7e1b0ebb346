package workload

import (
	"bufio"
	"fmt"
	"io"

	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/vfs"
)

// historySpill is where the recorder streams the operations it no longer
// holds: a scratch file (vfs.Scratch: unlinked as soon as it is made, so
// nothing is left behind however the process ends) in the history
// encoding, one JSON line each, in id order. Reading it back is the end
// checks' business (History); during a run it is only appended to. It
// touches no simulated state: where the history waits changes no run.
//
// Invariant: the file holds exactly ops 1..n in id order; once err is
// set nothing more is written (the recorder keeps the rest in memory).
type historySpill struct {
	// dir is where the file is made ("" is os.TempDir).
	dir  string
	f    vfs.File
	w    *bufio.Writer
	line []byte
	n    int
	err  error
}

// spillBufferBytes is the spill's write buffer: ops are written a block at
// a time, so it costs one write call per few hundred operations.
const spillBufferBytes = 256 << 10

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
		if want := uint64(s.n + 1); ops[i].ID != want {
			s.err = fmt.Errorf("history spill: op id %d written where id %d belongs", ops[i].ID, want)
			return s.err
		}
		var err error
		if s.line, err = properties.AppendHistoryLine(s.line[:0], &ops[i]); err != nil {
			s.err = fmt.Errorf("history spill: op %d: %w", ops[i].ID, err)
			return s.err
		}
		if _, err := s.w.Write(s.line); err != nil {
			s.err = fmt.Errorf("history spill: write %s: %w", s.f.Name(), err)
			return s.err
		}
		s.n++
	}
	return nil
}

// read returns every spilled operation in id order, reading the file from
// its start, in a slice with room for capOps (the whole history, so the
// held operations append without a copy); the file stays open for more.
func (s *historySpill) read(capOps int) ([]properties.HistoryOp, error) {
	if s.err != nil {
		return nil, s.err
	}
	if s.f == nil {
		return make([]properties.HistoryOp, 0, capOps), nil
	}
	if err := s.w.Flush(); err != nil {
		s.err = fmt.Errorf("history spill: write %s: %w", s.f.Name(), err)
		return nil, s.err
	}
	size, err := s.f.Size()
	if err != nil {
		return nil, fmt.Errorf("history spill: %s: %w", s.f.Name(), err)
	}
	ops := make([]properties.HistoryOp, 0, max(s.n, capOps))
	sc := bufio.NewScanner(io.NewSectionReader(s.f, 0, size))
	sc.Buffer(make([]byte, 0, 64<<10), properties.HistoryLineLenMax)
	for sc.Scan() {
		op, err := properties.ParseHistoryLine(sc.Bytes())
		if err != nil {
			return nil, fmt.Errorf("history spill: %s line %d: %w", s.f.Name(), len(ops)+1, err)
		}
		if want := uint64(len(ops) + 1); op.ID != want {
			return nil, fmt.Errorf("history spill: %s line %d holds op %d, want op %d", s.f.Name(), len(ops)+1, op.ID, want)
		}
		ops = append(ops, op)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("history spill: read %s: %w", s.f.Name(), err)
	}
	if len(ops) != s.n {
		return nil, fmt.Errorf("history spill: %s holds %d operations, %d were written", s.f.Name(), len(ops), s.n)
	}
	return ops, nil
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
