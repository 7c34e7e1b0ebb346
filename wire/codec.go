package wire

import (
	"encoding/binary"
	"fmt"
)

// appendU8 … appendBytes write fixed-width little-endian fields; every
// variable-length field is a uint32 length followed by its bytes.

func appendU8(b []byte, v uint8) []byte   { return append(b, v) }
func appendU32(b []byte, v uint32) []byte { return binary.LittleEndian.AppendUint32(b, v) }
func appendU64(b []byte, v uint64) []byte { return binary.LittleEndian.AppendUint64(b, v) }

func appendBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func appendBytes(b []byte, v []byte) []byte {
	b = appendU32(b, uint32(len(v)))
	return append(b, v...)
}

func appendString(b []byte, v string) []byte {
	b = appendU32(b, uint32(len(v)))
	return append(b, v...)
}

// reader walks a body with bounds checks. The first failure sticks: later
// reads return zero values and err keeps the first cause, so decoders can
// read a whole structure and check err once at each decision point.
type reader struct {
	// buf is owned by the reader (a private copy of a frame body).
	buf []byte
	pos int
	err error
}

func (r *reader) fail(format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%w: %s", ErrMalformed, fmt.Sprintf(format, args...))
	}
}

func (r *reader) remaining() int { return len(r.buf) - r.pos }

func (r *reader) take(n int, what string) []byte {
	return r.takeSuffix(n, what, "")
}

// takeSuffix is take with the field named by what+suffix, joined only on
// failure so the success path does not allocate.
func (r *reader) takeSuffix(n int, what, suffix string) []byte {
	if r.err != nil {
		return nil
	}
	if n < 0 || n > r.remaining() {
		r.fail("%s%s: needs %d bytes at body offset %d, only %d remain", what, suffix, n, r.pos, r.remaining())
		return nil
	}
	s := r.buf[r.pos : r.pos+n : r.pos+n]
	r.pos += n
	return s
}

func (r *reader) u8(what string) uint8 {
	s := r.take(1, what)
	if s == nil {
		return 0
	}
	return s[0]
}

func (r *reader) u32(what string) uint32 {
	s := r.take(4, what)
	if s == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(s)
}

func (r *reader) u64(what string) uint64 {
	s := r.take(8, what)
	if s == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(s)
}

func (r *reader) boolean(what string) bool {
	switch v := r.u8(what); v {
	case 0:
		return false
	case 1:
		return true
	default:
		r.fail("%s: boolean byte is %d, must be 0 or 1", what, v)
		return false
	}
}

// length reads a uint32 length and refuses it when it exceeds max or the
// bytes that remain, before anything is allocated for it.
func (r *reader) length(what string, max int) int {
	s := r.takeSuffix(4, what, " length")
	if s == nil {
		return 0
	}
	n := binary.LittleEndian.Uint32(s)
	if uint64(n) > uint64(max) {
		r.fail("%s length %d exceeds the limit %d", what, n, max)
		return 0
	}
	if int(n) > r.remaining() {
		r.fail("%s length %d exceeds the %d bytes that remain", what, n, r.remaining())
		return 0
	}
	return int(n)
}

// bytesField reads a length-prefixed byte string (nil when empty). It
// aliases the reader's buffer, which decoders own: they copy the caller's
// frame body once, so a decoded value never aliases the caller's bytes.
func (r *reader) bytesField(what string, max int) []byte {
	n := r.length(what, max)
	s := r.take(n, what)
	if len(s) == 0 {
		return nil
	}
	return s
}

func (r *reader) stringField(what string, max int) string {
	n := r.length(what, max)
	return string(r.take(n, what))
}

// count reads a uint32 element count and refuses it when it exceeds max or
// when even elements of minSize bytes could not fit in what remains.
func (r *reader) count(what string, max, minSize int) int {
	s := r.takeSuffix(4, what, " count")
	if s == nil {
		return 0
	}
	n := binary.LittleEndian.Uint32(s)
	if uint64(n) > uint64(max) {
		r.fail("%s count %d exceeds the limit %d", what, n, max)
		return 0
	}
	if uint64(n)*uint64(minSize) > uint64(r.remaining()) {
		r.fail("%s count %d needs at least %d bytes, only %d remain", what, n, uint64(n)*uint64(minSize), r.remaining())
		return 0
	}
	return int(n)
}

// newReader copies body so that decoded byte fields may alias it safely.
func newReader(body []byte) *reader {
	return &reader{buf: append([]byte(nil), body...)}
}

// end refuses trailing bytes after a complete body.
func (r *reader) end(what string) {
	if r.err == nil && r.remaining() != 0 {
		r.fail("%s: %d trailing bytes after the body", what, r.remaining())
	}
}
