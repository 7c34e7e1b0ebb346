package relay

import (
	"bytes"
	"fmt"
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
// Invariant: the file holds deliveries 0..n-1 in order (n its lines);
// once it has failed nothing more is written.
type sinkSpill struct {
	file *vfs.LineFile
	line []byte
}

// sinkLineLenMax caps a spilled line a read accepts (an event payload is
// a client's record, far shorter).
const sinkLineLenMax = 1 << 20

// n is how many deliveries the file holds.
func (s *sinkSpill) n() int {
	if s.file == nil {
		return 0
	}
	return s.file.Lines()
}

// write appends ds (the next deliveries in order) to the file, creating
// it first in the system's temporary directory; tag names each one's
// scope. A failure is remembered and reported by every later call.
func (s *sinkSpill) write(ds []properties.OutboxDelivery, tag func(felix.Scope) int) error {
	if s.file == nil {
		s.file = vfs.NewLineFile("relay sink spill", "", "felixsim-sink-*.txt", 64<<10, sinkLineLenMax)
	}
	for i := range ds {
		d := &ds[i]
		if d.Seq != uint64(s.file.Lines()) {
			return s.file.Fail(fmt.Errorf("relay sink spill: delivery %d written where %d belongs", d.Seq, s.file.Lines()))
		}
		b := strconv.AppendInt(s.line[:0], int64(tag(d.Scope)), 10)
		b = strconv.AppendUint(append(b, ' '), d.Seq, 10)
		b = strconv.AppendUint(append(b, ' '), d.Offset, 10)
		b = strconv.AppendBool(append(b, ' '), d.Enqueue)
		b = strconv.AppendUint(append(b, ' '), d.Incarnation, 10)
		b = append(strconv.AppendQuote(append(b, ' '), d.Event), '\n')
		s.line = b
		if err := s.file.Append(b); err != nil {
			return err
		}
	}
	return nil
}

// read returns the spilled deliveries whose tags take wants, in order,
// checking every line; scopes are the relay's, by tag.
func (s *sinkSpill) read(scopes []felix.Scope, take func(tag int) bool) ([]properties.OutboxDelivery, error) {
	if s.file == nil {
		return nil, nil
	}
	var out []properties.OutboxDelivery
	err := s.file.Scan(func(n int, line []byte) error {
		tag, seq, err := sinkLineHead(line, len(scopes))
		if err == nil && seq != uint64(n-1) {
			err = fmt.Errorf("holds delivery %d", seq)
		}
		if err == nil && take(tag) {
			var d properties.OutboxDelivery
			if d, err = parseSinkLine(line, scopes); err == nil {
				out = append(out, d)
			}
		}
		return err
	})
	if err != nil {
		return nil, err
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
	if s.file == nil {
		return nil
	}
	return s.file.Close()
}
