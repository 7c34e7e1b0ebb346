package logstore

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
)

// errShort marks a field that runs past the end of its frame payload.
var errShort = errors.New("field runs past the end of the frame")

// enc appends fields to a byte slice.
type enc struct{ b []byte }

func (e *enc) u8(v uint8)    { e.b = append(e.b, v) }
func (e *enc) uvar(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *enc) u32(v uint32)  { e.b = binary.LittleEndian.AppendUint32(e.b, v) }
func (e *enc) u64(v uint64)  { e.b = binary.LittleEndian.AppendUint64(e.b, v) }
func (e *enc) bytes(p []byte) {
	e.uvar(uint64(len(p)))
	e.b = append(e.b, p...)
}
func (e *enc) str(s string) {
	e.uvar(uint64(len(s)))
	e.b = append(e.b, s...)
}
func (e *enc) boolean(v bool) {
	if v {
		e.u8(1)
		return
	}
	e.u8(0)
}

// dec reads fields strictly: the first error sticks and every later read
// returns zero values.
type dec struct {
	b   []byte
	off int
	err error
	// names are the scope names decoded before, to share (nil: none).
	names *scopeNames
}

func (d *dec) fail(err error) {
	if d.err == nil {
		d.err = fmt.Errorf("at payload byte %d: %w", d.off, err)
	}
}

func (d *dec) take(n int) []byte {
	if d.err != nil {
		return nil
	}
	if n < 0 || n > len(d.b)-d.off {
		d.fail(errShort)
		return nil
	}
	p := d.b[d.off : d.off+n]
	d.off += n
	return p
}

func (d *dec) u8() uint8 {
	p := d.take(1)
	if p == nil {
		return 0
	}
	return p[0]
}

func (d *dec) u32() uint32 {
	p := d.take(4)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint32(p)
}

func (d *dec) u64() uint64 {
	p := d.take(8)
	if p == nil {
		return 0
	}
	return binary.LittleEndian.Uint64(p)
}

func (d *dec) uvar() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b[d.off:])
	if n <= 0 {
		d.fail(errors.New("bad varint"))
		return 0
	}
	if n != uvarintLen(v) {
		d.fail(errors.New("non-minimal varint"))
		return 0
	}
	d.off += n
	return v
}

// uvarintLen is the length of v's minimal uvarint encoding, in bytes.
func uvarintLen(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }

// lenField reads a length and refuses one above limit.
func (d *dec) lenField(what string, limit int) int {
	n := d.uvar()
	if d.err == nil && n > uint64(limit) {
		d.fail(fmt.Errorf("%s length %d exceeds %d", what, n, limit))
		return 0
	}
	return int(n)
}

func (d *dec) bytes(what string, limit int) []byte {
	n := d.lenField(what, limit)
	p := d.take(n)
	if p == nil {
		return nil
	}
	out := make([]byte, n)
	copy(out, p)
	return out
}

func (d *dec) str(what string, limit int) string {
	n := d.lenField(what, limit)
	return string(d.take(n))
}

func (d *dec) boolean() bool {
	v := d.u8()
	if d.err == nil && v > 1 {
		d.fail(fmt.Errorf("bool byte %d is neither 0 nor 1", v))
	}
	return v == 1
}

// count reads an element count and refuses one that could not fit in the
// remaining bytes at minBytes per element.
func (d *dec) count(what string, minBytes int) int {
	n := d.uvar()
	if d.err != nil {
		return 0
	}
	if n > uint64((len(d.b)-d.off)/minBytes) {
		d.fail(fmt.Errorf("%d %s cannot fit in %d remaining bytes", n, what, len(d.b)-d.off))
		return 0
	}
	return int(n)
}

// done refuses trailing bytes.
func (d *dec) done() error {
	if d.err == nil && d.off != len(d.b) {
		d.fail(fmt.Errorf("%d trailing bytes", len(d.b)-d.off))
	}
	return d.err
}
