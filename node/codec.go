package node

import (
	"encoding/binary"
	"errors"
	"fmt"
)

// ErrMalformed marks bytes a node decoder refused: a raft entry command or
// a metadata snapshot that is truncated, has trailing bytes, an unknown
// kind or an out-of-limit field.
var ErrMalformed = errors.New("malformed node encoding")

// enc appends fixed-width little-endian fields and length-prefixed bytes.
type enc struct{ b []byte }

func (e *enc) u8(v uint8)   { e.b = append(e.b, v) }
func (e *enc) u32(v uint32) { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *enc) u64(v uint64) { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *enc) str(s string) {
	e.u32(uint32(len(s)))
	e.b = append(e.b, s...)
}
func (e *enc) bytes(p []byte) {
	e.u32(uint32(len(p)))
	e.b = append(e.b, p...)
}

// dec reads strictly; the first failure sticks and later reads return zero.
type dec struct {
	b   []byte
	off int
	err error
}

func (d *dec) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: at byte %d: %s", ErrMalformed, d.off, fmt.Sprintf(format, args...))
	}
}

func (d *dec) take(n int, what string) []byte { return d.takeSuffixed(n, what, "") }

// takeSuffixed is take for the field named what+suffix, joining the two
// only on failure (so reading a length or count allocates nothing).
func (d *dec) takeSuffixed(n int, what, suffix string) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b)-d.off {
		d.fail("%s%s needs %d bytes, %d remain", what, suffix, n, len(d.b)-d.off)
		return nil
	}
	p := d.b[d.off : d.off+n : d.off+n]
	d.off += n
	return p
}

func (d *dec) u8(what string) uint8 {
	if p := d.take(1, what); p != nil {
		return p[0]
	}
	return 0
}

// flag reads a byte that must be 0 (false) or 1 (true).
func (d *dec) flag(what string) bool {
	switch v := d.u8(what); v {
	case 0:
		return false
	case 1:
		return true
	default:
		d.fail("%s byte %d is neither 0 nor 1", what, v)
		return false
	}
}

func (d *dec) u32(what string) uint32 { return d.u32Suffixed(what, "") }

func (d *dec) u32Suffixed(what, suffix string) uint32 {
	if p := d.takeSuffixed(4, what, suffix); p != nil {
		return binary.LittleEndian.Uint32(p)
	}
	return 0
}

func (d *dec) u64(what string) uint64 {
	if p := d.take(8, what); p != nil {
		return binary.LittleEndian.Uint64(p)
	}
	return 0
}

// bytes reads a length-prefixed field into a new slice (never aliasing the
// input).
func (d *dec) bytes(what string, lenMax int) []byte {
	p := d.view(what, lenMax)
	if p == nil {
		return nil
	}
	return append([]byte(nil), p...)
}

// str reads a length-prefixed string into one new allocation.
func (d *dec) str(what string, lenMax int) string { return string(d.view(what, lenMax)) }

// strShared reads a length-prefixed string and returns the first of known
// that equals it, sharing that string's memory (no allocation), or else a
// new copy. Comparing string(p) with a string does not allocate.
func (d *dec) strShared(what string, lenMax int, known ...string) string {
	p := d.view(what, lenMax)
	for _, k := range known {
		if string(p) == k {
			return k
		}
	}
	return string(p)
}

// view reads a length-prefixed field and returns it without copying: the
// result aliases the input.
func (d *dec) view(what string, lenMax int) []byte {
	n := d.u32Suffixed(what, " length")
	if d.err == nil && int64(n) > int64(lenMax) {
		d.fail("%s of %d bytes exceeds %d", what, n, lenMax)
		return nil
	}
	return d.take(int(n), what)
}

// count reads an element count and refuses one above countMax or one that
// cannot fit in the remaining bytes at minBytes per element.
func (d *dec) count(what string, countMax, minBytes int) int {
	n := d.u32Suffixed(what, " count")
	if d.err != nil {
		return 0
	}
	if int64(n) > int64(countMax) || int64(n)*int64(minBytes) > int64(len(d.b)-d.off) {
		d.fail("%d %s: more than %d or than %d remaining bytes hold", n, what, countMax, len(d.b)-d.off)
		return 0
	}
	return int(n)
}

// done refuses trailing bytes and returns the first failure.
func (d *dec) done() error {
	if d.err == nil && d.off != len(d.b) {
		d.fail("%d trailing bytes", len(d.b)-d.off)
	}
	return d.err
}
