package timeline

import (
	"fmt"
	"strings"
)

// The page carries the operations as text in a compact number encoding
// that the page's script decodes: each number in base 32, least
// significant digit first, one character per digit from digits; a digit
// d that ends the number is digits[d], one that more digits follow is
// digits[32+d]. Signed numbers are zigzag-mapped first (0, -1, 1, -2 …
// to 0, 1, 2, 3 …). A 10 ms gap in microseconds takes three characters.

// digits is the encoding's alphabet: no character needs escaping in
// JSON or HTML.
const digits = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"

// putUint appends v to b.
func putUint(b *strings.Builder, v uint64) {
	for v >= 32 {
		b.WriteByte(digits[32+v%32])
		v /= 32
	}
	b.WriteByte(digits[v])
}

// putInt appends v, zigzag-mapped, to b.
func putInt(b *strings.Builder, v int64) { putUint(b, uint64(v<<1)^uint64(v>>63)) }

// numReader reads numbers from an encoded string (the page's decoder,
// in Go, for tests and for checking what the page is handed).
type numReader struct {
	s string
	i int
}

func (r *numReader) more() bool { return r.i < len(r.s) }

// uint reads one number; a string cut inside one, or a character not in
// digits, is refused.
func (r *numReader) uint() (uint64, error) {
	var v, mul uint64 = 0, 1
	for {
		if r.i >= len(r.s) {
			return 0, fmt.Errorf("encoded numbers refused: cut inside a number at %d", r.i)
		}
		d := strings.IndexByte(digits, r.s[r.i])
		if d < 0 {
			return 0, fmt.Errorf("encoded numbers refused: %q at %d is not a digit", r.s[r.i], r.i)
		}
		r.i++
		if d < 32 {
			return v + uint64(d)*mul, nil
		}
		v += uint64(d-32) * mul
		mul *= 32
	}
}

func (r *numReader) int() (int64, error) {
	z, err := r.uint()
	return int64(z>>1) ^ -int64(z&1), err
}

// opCode packs an operation's kind, outcome and row into one number.
func opCode(o *Op) uint64 { return uint64(o.Kind)<<6 | uint64(o.Outcome)<<3 | uint64(o.Row&7) }

// encodeOps writes a lane's operations (sorted by FromNs) as six numbers
// each: the id's change from the previous one, the invocation's change
// in microseconds, the duration in microseconds (rounded up), opCode,
// the scope's index in scopes, the offset.
func encodeOps(ops []Op, scopes map[string]int) string {
	var b strings.Builder
	var id uint64
	var atUs int64
	for i := range ops {
		o := &ops[i]
		fromUs := o.FromNs / 1000
		putInt(&b, int64(o.ID-id))
		putInt(&b, fromUs-atUs)
		putUint(&b, uint64(max((o.ToNs+999)/1000-fromUs, 0)))
		putUint(&b, opCode(o))
		putUint(&b, uint64(scopes[o.Scope]))
		putUint(&b, o.Offset)
		id, atUs = o.ID, fromUs
	}
	return b.String()
}

// encodeBins writes one outcome's counts per bin as pairs: the empty
// bins skipped since the last count, the count.
func encodeBins(counts []int) string {
	var b strings.Builder
	skip := 0
	for _, n := range counts {
		if n == 0 {
			skip++
			continue
		}
		putUint(&b, uint64(skip))
		putUint(&b, uint64(n))
		skip = 0
	}
	return b.String()
}

// decodeBins reads encodeBins' pairs back into bins counts.
func decodeBins(s string, bins int) ([]int, error) {
	out := make([]int, bins)
	r := numReader{s: s}
	i := 0
	for r.more() {
		skip, err := r.uint()
		if err != nil {
			return nil, err
		}
		n, err := r.uint()
		if err != nil {
			return nil, err
		}
		i += int(skip)
		if i >= bins {
			return nil, fmt.Errorf("encoded bins refused: bin %d past the %d bins", i, bins)
		}
		out[i] = int(n)
		i++
	}
	return out, nil
}
