package wire

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// Frame layout constants; docs/atomic-commit.md states the same values and a
// test keeps the two in step.
const (
	// Magic0 and Magic1 are the two bytes every frame starts with ("FX").
	Magic0 = 'F'
	Magic1 = 'X'
	// Version is the only frame version this build reads and writes.
	Version = 1
	// FrameHeaderLen is magic(2) + version(1) + kind(1) + body length(4).
	FrameHeaderLen = 8
	// FrameTrailerLen is the CRC-32C that closes every frame.
	FrameTrailerLen = 4
	// FrameOverheadLen is what a frame adds around its body.
	FrameOverheadLen = FrameHeaderLen + FrameTrailerLen
	// FrameBodyLenMax is the largest body any frame may carry, in bytes.
	// Encoders refuse to exceed it and decoders refuse a header claiming more,
	// so a forged length never makes anyone allocate more than this.
	FrameBodyLenMax = 8 << 20
)

// FrameKind says what a frame's body holds.
type FrameKind uint8

// Frame kinds. The zero value is invalid.
const (
	FrameInvalid FrameKind = iota
	FrameRecord
	FrameRequest
	FrameAnswer
)

// String names the frame kind.
func (k FrameKind) String() string {
	switch k {
	case FrameRecord:
		return "record"
	case FrameRequest:
		return "request"
	case FrameAnswer:
		return "answer"
	}
	return fmt.Sprintf("FrameKind(%d)", uint8(k))
}

// ErrMalformed marks every refusal to decode: truncated, corrupted, trailing
// or out-of-limit bytes, unknown versions, kinds or enum values.
var ErrMalformed = errors.New("malformed wire bytes")

// ErrChecksum marks a frame whose CRC-32C does not match its bytes; errors
// carrying it also wrap ErrMalformed.
var ErrChecksum = errors.New("checksum mismatch")

// ErrUnencodable marks a value an encoder refused because it is invalid or
// would exceed a limit.
var ErrUnencodable = errors.New("value cannot be encoded")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// beginFrame appends a frame header with a placeholder length and returns
// the buffer and the index where the body starts.
func beginFrame(dst []byte, kind FrameKind) ([]byte, int) {
	dst = append(dst, Magic0, Magic1, Version, byte(kind), 0, 0, 0, 0)
	return dst, len(dst)
}

// finishFrame fills in the body length and appends the CRC over the frame.
func finishFrame(dst []byte, start, bodyStart int) ([]byte, error) {
	bodyLen := len(dst) - bodyStart
	if bodyLen > FrameBodyLenMax {
		return dst[:start], fmt.Errorf("%w: body of %d bytes exceeds FrameBodyLenMax %d", ErrUnencodable, bodyLen, FrameBodyLenMax)
	}
	binary.LittleEndian.PutUint32(dst[bodyStart-4:bodyStart], uint32(bodyLen))
	return appendU32(dst, crc32.Checksum(dst[start:], castagnoli)), nil
}

// FrameLen reads a frame header (at least FrameHeaderLen bytes) and returns
// the whole frame's length, so a reader of a byte stream knows how much to
// read next without trusting an unchecked length.
func FrameLen(header []byte) (int, error) {
	if len(header) < FrameHeaderLen {
		return 0, fmt.Errorf("%w: frame header needs %d bytes, got %d", ErrMalformed, FrameHeaderLen, len(header))
	}
	if header[0] != Magic0 || header[1] != Magic1 {
		return 0, fmt.Errorf("%w: frame starts with %#02x %#02x, not the magic %q", ErrMalformed, header[0], header[1], string([]byte{Magic0, Magic1}))
	}
	if header[2] != Version {
		return 0, fmt.Errorf("%w: frame version %d is not supported (this build speaks %d)", ErrMalformed, header[2], Version)
	}
	kind := FrameKind(header[3])
	if kind != FrameRecord && kind != FrameRequest && kind != FrameAnswer {
		return 0, fmt.Errorf("%w: unknown frame kind %d", ErrMalformed, header[3])
	}
	n := binary.LittleEndian.Uint32(header[4:8])
	if n > FrameBodyLenMax {
		return 0, fmt.Errorf("%w: frame claims a %d-byte body, over FrameBodyLenMax %d", ErrMalformed, n, FrameBodyLenMax)
	}
	return FrameHeaderLen + int(n) + FrameTrailerLen, nil
}

// openFrame checks a whole frame of the wanted kind and returns its body.
func openFrame(b []byte, want FrameKind) ([]byte, error) {
	n, err := FrameLen(b)
	if err != nil {
		return nil, err
	}
	if got := FrameKind(b[3]); got != want {
		return nil, fmt.Errorf("%w: frame holds a %s, expected a %s", ErrMalformed, got, want)
	}
	if len(b) < n {
		return nil, fmt.Errorf("%w: %s frame truncated: %d of %d bytes", ErrMalformed, want, len(b), n)
	}
	if len(b) > n {
		return nil, fmt.Errorf("%w: %d trailing bytes after a %d-byte %s frame", ErrMalformed, len(b)-n, n, want)
	}
	got := binary.LittleEndian.Uint32(b[n-FrameTrailerLen:])
	if sum := crc32.Checksum(b[:n-FrameTrailerLen], castagnoli); got != sum {
		return nil, fmt.Errorf("%w: %w: %s frame carries CRC-32C %#08x, bytes give %#08x", ErrMalformed, ErrChecksum, want, got, sum)
	}
	return b[FrameHeaderLen : n-FrameTrailerLen], nil
}
