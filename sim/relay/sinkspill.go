package relay

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

// sinkSpill is where a Sink streams the deliveries it no longer holds: a
// scratch file (vfs.Scratch: unlinked as soon as it is made, so nothing
// is left behind however the process ends), one line per delivery in
// sink order: its scope's tag, sequence number, offset, event kind
// (1 enqueue, 0 publish), relay incarnation and Go-quoted event. The tag
// lets a reader take a few scopes' deliveries without decoding the
// others'. Where the record waits changes no run.
//
// Invariant: the file holds deliveries 0..n-1 in order; once err is set
// nothing more is written.
type sinkSpill struct {
	f    vfs.File
	w    *bufio.Writer
	line []byte
	n    int
	err  error
}

// sinkLineLenMax caps a spilled line a read accepts (an event payload is
// a client's record, far shorter).
const sinkLineLenMax = 1 << 20

// write appends ds (the next deliveries in order) to the file, creating
// it first in the system's temporary directory; tag names each one's
// scope. A failure is remembered and reported by every later call.
func (s *sinkSpill) write(ds []properties.OutboxDelivery, tag func(felix.Scope) int) error {
	if s.err != nil {
		return s.err
	}
	if s.f == nil {
		f, err := vfs.Scratch("", "felixsim-sink-*.txt")
		if err != nil {
			s.err = fmt.Errorf("relay sink spill: %w", err)
			return s.err
		}
		s.f, s.w = f, bufio.NewWriterSize(f, 64<<10)
	}
	for i := range ds {
		d := &ds[i]
		if d.Seq != uint64(s.n) {
			s.err = fmt.Errorf("relay sink spill: delivery %d written where %d belongs", d.Seq, s.n)
			return s.err
		}
		b := strconv.AppendInt(s.line[:0], int64(tag(d.Scope)), 10)
		b = strconv.AppendUint(append(b, ' '), d.Seq, 10)
		b = strconv.AppendUint(append(b, ' '), d.Offset, 10)
		b = strconv.AppendBool(append(b, ' '), d.Enqueue)
		b = strconv.AppendUint(append(b, ' '), d.Incarnation, 10)
		b = append(strconv.AppendQuote(append(b, ' '), d.Event), '\n')
		if _, err := s.w.Write(b); err != nil {
			s.err = fmt.Errorf("relay sink spill: write %s: %w", s.f.Name(), err)
			return s.err
		}
		s.line = b
		s.n++
	}
	return nil
}

// read returns the spilled deliveries whose tags take wants, in order,
// checking every line; scopes are the relay's, by tag.
func (s *sinkSpill) read(scopes []felix.Scope, take func(tag int) bool) ([]properties.OutboxDelivery, error) {
	if s.err != nil || s.f == nil {
		return nil, s.err
	}
	if err := s.w.Flush(); err != nil {
		s.err = fmt.Errorf("relay sink spill: write %s: %w", s.f.Name(), err)
		return nil, s.err
	}
	size, err := s.f.Size()
	if err != nil {
		return nil, fmt.Errorf("relay sink spill: %s: %w", s.f.Name(), err)
	}
	var out []properties.OutboxDelivery
	sc := bufio.NewScanner(io.NewSectionReader(s.f, 0, size))
	sc.Buffer(make([]byte, 0, 64<<10), sinkLineLenMax)
	lines := 0
	for ; sc.Scan(); lines++ {
		tag, seq, err := sinkLineHead(sc.Bytes(), len(scopes))
		if err == nil && seq != uint64(lines) {
			err = fmt.Errorf("holds delivery %d", seq)
		}
		if err == nil && take(tag) {
			var d properties.OutboxDelivery
			if d, err = parseSinkLine(sc.Bytes(), scopes); err == nil {
				out = append(out, d)
			}
		}
		if err != nil {
			return nil, fmt.Errorf("relay sink spill: %s line %d: %w", s.f.Name(), lines+1, err)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("relay sink spill: read %s: %w", s.f.Name(), err)
	}
	if lines != s.n {
		return nil, fmt.Errorf("relay sink spill: %s holds %d deliveries, %d were written", s.f.Name(), lines, s.n)
	}
	return out, nil
}

// sinkLineHead reads a spilled line's scope tag (one of scopes) and
// sequence number.
func sinkLineHead(b []byte, scopes int) (tag int, seq uint64, err error) {
	f := bytes.SplitN(b, []byte(" "), 3)
	if len(f) != 3 {
		return 0, 0, fmt.Errorf("%d fields, want 6", len(f))
	}
	if tag, err = strconv.Atoi(string(f[0])); err == nil && (tag < 0 || tag >= scopes) {
		err = fmt.Errorf("scope tag %d of %d scopes", tag, scopes)
	}
	if err == nil {
		seq, err = strconv.ParseUint(string(f[1]), 10, 64)
	}
	return tag, seq, err
}

// parseSinkLine reads one spilled delivery (its head read by sinkLineHead).
func parseSinkLine(b []byte, scopes []felix.Scope) (properties.OutboxDelivery, error) {
	f := bytes.SplitN(b, []byte(" "), 6)
	if len(f) != 6 {
		return properties.OutboxDelivery{}, fmt.Errorf("%d fields, want 6", len(f))
	}
	tag, _ := strconv.Atoi(string(f[0]))
	seq, _ := strconv.ParseUint(string(f[1]), 10, 64)
	off, err1 := strconv.ParseUint(string(f[2]), 10, 64)
	enq, err2 := strconv.ParseBool(string(f[3]))
	inc, err3 := strconv.ParseUint(string(f[4]), 10, 64)
	ev, err4 := strconv.Unquote(string(f[5]))
	for _, err := range []error{err1, err2, err3, err4} {
		if err != nil {
			return properties.OutboxDelivery{}, err
		}
	}
	return properties.OutboxDelivery{Seq: seq, Scope: scopes[tag], Offset: off, Enqueue: enq, Event: ev, Incarnation: inc}, nil
}

// close releases the file.
func (s *sinkSpill) close() error {
	if s.f == nil {
		return nil
	}
	err := s.f.Close()
	s.f, s.w = nil, nil
	return err
}
