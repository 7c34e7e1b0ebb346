package logstore

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// A frame is: crc32c (4 bytes, little endian, over kind, length and
// payload) | kind (1 byte) | payload length (4 bytes, little endian) |
// payload.
const (
	frameHeaderBytes = 9
	// frameLenMax is the largest frame payload, in bytes; a batch whose
	// table frame would exceed it is refused.
	frameLenMax = 64 << 20
)

// frameKind tags a frame; the zero value is invalid.
type frameKind uint8

const (
	kindInvalid frameKind = iota
	kindHeader
	kindRaft
	kindLog
	kindState
	kindPosition
	kindOutbox
	kindConsumerGroup
	kindCommit
	kindEnd // one past the last kind
)

func (k frameKind) String() string {
	switch k {
	case kindHeader:
		return "header"
	case kindRaft:
		return "raft"
	case kindLog:
		return "log"
	case kindState:
		return "state"
	case kindPosition:
		return "position"
	case kindOutbox:
		return "outbox"
	case kindConsumerGroup:
		return "consumer group"
	case kindCommit:
		return "commit"
	}
	return fmt.Sprintf("frameKind(%d)", uint8(k))
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// appendFrame appends one frame holding payload to dst.
func appendFrame(dst []byte, kind frameKind, payload []byte) []byte {
	if len(payload) > frameLenMax {
		panic(fmt.Sprintf("logstore: %s frame payload of %d bytes exceeds %d", kind, len(payload), frameLenMax))
	}
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0, byte(kind), 0, 0, 0, 0)
	dst = append(dst, payload...)
	sealFrame(dst[start:])
	return dst
}

// sealFrame fills in the length and checksum of frame, whose kind and
// payload are in place.
func sealFrame(frame []byte) {
	binary.LittleEndian.PutUint32(frame[5:], uint32(len(frame)-frameHeaderBytes))
	binary.LittleEndian.PutUint32(frame, crc32.Checksum(frame[4:], castagnoli))
}

// errTruncated marks a frame that runs past the end of the file: the
// signature of a torn write.
var errTruncated = errors.New("frame runs past the end of the file")

// parseFrame reads the frame at off. It returns its kind, payload and the
// offset just past it.
func parseFrame(buf []byte, off int) (frameKind, []byte, int, error) {
	if len(buf)-off < frameHeaderBytes {
		return kindInvalid, nil, 0, errTruncated
	}
	kind := frameKind(buf[off+4])
	n := binary.LittleEndian.Uint32(buf[off+5:])
	if n > frameLenMax {
		return kindInvalid, nil, 0, fmt.Errorf("frame length %d exceeds %d", n, frameLenMax)
	}
	end := off + frameHeaderBytes + int(n)
	if end > len(buf) {
		return kindInvalid, nil, 0, errTruncated
	}
	want := binary.LittleEndian.Uint32(buf[off:])
	if got := crc32.Checksum(buf[off+4:end], castagnoli); got != want {
		return kindInvalid, nil, 0, fmt.Errorf("frame checksum %08x, want %08x", got, want)
	}
	if kind == kindInvalid || kind >= kindEnd {
		return kindInvalid, nil, 0, fmt.Errorf("unknown frame kind %d", kind)
	}
	return kind, buf[off+frameHeaderBytes : end], end, nil
}

// The file header frame's payload: magic and format version. Version 2
// added the applied index to the raft frame and the consumer-group frame
// (kind 7, moving the commit marker's kind to 8); Open refuses a version 1
// file as corrupt, since no version 1 store was ever deployed.
const (
	fileMagic   = "felixsim-logstore"
	fileVersion = 2
)

func headerFrame() []byte {
	p := binary.LittleEndian.AppendUint32([]byte(fileMagic), fileVersion)
	return appendFrame(nil, kindHeader, p)
}

// commitMarker is the payload of a commit frame.
type commitMarker struct {
	seq        uint64 // transaction sequence number, from 1, consecutive
	frameCount uint32 // frames in the transaction before the marker
	txnCRC     uint32 // crc32c over those frames' bytes
}

const (
	commitMagic        = 0x43584c46 // "FLXC"
	commitPayloadBytes = 20
	commitFrameBytes   = frameHeaderBytes + commitPayloadBytes
)

// sealed returns the marker frame written twice: a transaction ends with
// two identical copies, so that a flipped bit in one copy of the last
// transaction's marker is caught by the other instead of passing for a
// torn write and silently dropping an acknowledged transaction.
func (m commitMarker) sealed() []byte {
	return m.appendSealed(make([]byte, 0, 2*commitFrameBytes))
}

// appendSealed appends the marker frame written twice to dst.
func (m commitMarker) appendSealed(dst []byte) []byte {
	start := len(dst)
	dst = m.appendFrame(dst)
	return append(dst, dst[start:]...)
}

func (m commitMarker) frame() []byte {
	return m.appendFrame(make([]byte, 0, commitFrameBytes))
}

func (m commitMarker) appendFrame(dst []byte) []byte {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0, byte(kindCommit), 0, 0, 0, 0)
	dst = binary.LittleEndian.AppendUint32(dst, commitMagic)
	dst = binary.LittleEndian.AppendUint64(dst, m.seq)
	dst = binary.LittleEndian.AppendUint32(dst, m.frameCount)
	dst = binary.LittleEndian.AppendUint32(dst, m.txnCRC)
	sealFrame(dst[start:])
	return dst
}

func parseCommit(p []byte) (commitMarker, error) {
	if len(p) != commitPayloadBytes {
		return commitMarker{}, fmt.Errorf("commit marker of %d bytes, want %d", len(p), commitPayloadBytes)
	}
	if binary.LittleEndian.Uint32(p) != commitMagic {
		return commitMarker{}, errors.New("commit marker lacks its magic")
	}
	return commitMarker{
		seq:        binary.LittleEndian.Uint64(p[4:]),
		frameCount: binary.LittleEndian.Uint32(p[12:]),
		txnCRC:     binary.LittleEndian.Uint32(p[16:]),
	}, nil
}

// commitAfter returns the offset of the first intact commit frame starting
// after off, or -1. Recovery uses it to tell a torn tail (nothing valid
// follows the damage) from corruption (a committed transaction follows).
func commitAfter(buf []byte, off int) int {
	for o := off + 1; o+commitFrameBytes <= len(buf); o++ {
		if frameKind(buf[o+4]) != kindCommit {
			continue
		}
		kind, p, _, err := parseFrame(buf, o)
		if err != nil || kind != kindCommit {
			continue
		}
		if _, err := parseCommit(p); err == nil {
			return o
		}
	}
	return -1
}

// isHeaderPrefix reports whether buf is a strict prefix of the file header:
// a file created but torn before its first sync.
func isHeaderPrefix(buf []byte) bool {
	h := headerFrame()
	return len(buf) < len(h) && bytes.Equal(buf, h[:len(buf)])
}
