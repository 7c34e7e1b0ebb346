package relay

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/felixsim/felixsim/vfs"
)

// The relay's position file: for each relayed scope, in Config.Scopes
// order, the next offset to deliver. Layout, little-endian: magic (4
// bytes), scope count (uint32), one uint64 per scope, CRC-32C of all that
// (uint32). It is replaced whole: written to a temporary file, synced,
// renamed over, and the directory synced.
const (
	positionFile    = "relay.pos"
	positionFileTmp = "relay.pos.tmp"
	positionMagic   = 0x52454c31 // "REL1"
)

// errNoPosition marks a position file that is absent, damaged or written
// for another scope list: the relay starts every scope from offset 0.
var errNoPosition = errors.New("no usable relay position")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// encodePositions encodes next offsets as the position file.
func encodePositions(next []uint64) []byte {
	b := binary.LittleEndian.AppendUint32(nil, positionMagic)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(next)))
	for _, o := range next {
		b = binary.LittleEndian.AppendUint64(b, o)
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// decodePositions decodes a position file for scopes scopes.
func decodePositions(b []byte, scopes int) ([]uint64, error) {
	if len(b) != 4+4+8*scopes+4 {
		return nil, fmt.Errorf("%w: %d bytes, want %d for %d scopes", errNoPosition, len(b), 4+4+8*scopes+4, scopes)
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return nil, fmt.Errorf("%w: checksum mismatch", errNoPosition)
	}
	if m := binary.LittleEndian.Uint32(body); m != positionMagic {
		return nil, fmt.Errorf("%w: magic %#x", errNoPosition, m)
	}
	if n := binary.LittleEndian.Uint32(body[4:]); int(n) != scopes {
		return nil, fmt.Errorf("%w: written for %d scopes, the relay has %d", errNoPosition, n, scopes)
	}
	out := make([]uint64, scopes)
	for i := range out {
		out[i] = binary.LittleEndian.Uint64(body[8+8*i:])
	}
	return out, nil
}

// loadPositions reads the position file; any failure is errNoPosition.
func loadPositions(fs vfs.FS, scopes int) ([]uint64, error) {
	b, err := vfs.ReadAll(fs, positionFile)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNoPosition, err)
	}
	return decodePositions(b, scopes)
}

// storePositions replaces the position file durably; on error the old
// file may or may not have been replaced, and either is safe to resume
// from (both hold only delivered positions).
func storePositions(fs vfs.FS, next []uint64) error {
	f, err := fs.Create(positionFileTmp)
	if err != nil {
		return err
	}
	if _, err := f.Write(encodePositions(next)); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := fs.Rename(positionFileTmp, positionFile); err != nil {
		return err
	}
	return fs.SyncDir(".")
}
