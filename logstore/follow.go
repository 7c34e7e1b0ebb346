package logstore

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"slices"

	"github.com/felixsim/felixsim/vfs"
)

// DurableSource reads what a crash would leave of a file: the bytes of
// its durable directory entry up to its synced length (vfs.Mem has it).
type DurableSource interface {
	DurableReadAt(name string, p []byte, offsetBytes int64) (n int, sizeBytes int64, err error)
}

// Follower reads a store file's durable bytes as they grow and replays
// each whole transaction among them, as Open replays a file, into a Store
// of its own: what the bytes say, decoded apart from the Store that wrote
// them (whose memory Commit installs from the batch). A checker compares
// the two. The followed store replays with no planted defect: it is the
// reading a correct store makes of those bytes.
//
// A Follower reads each byte once while the file only grows, and keeps
// only the bytes past its last whole transaction (and the last few it
// read, to tell the file still extends them); a file that no longer
// extends what it read (rewritten, or cut by a crash) is read again from
// its start.
type Follower struct {
	name string
	s    *Store
	// buf holds the file's bytes from byte base up to the end read so
	// far; committed is the file offset just past the last transaction
	// replayed.
	//
	// Invariant: base <= committed <= base+len(buf), or committed == 0
	// (nothing replayed yet) with base == 0.
	buf       []byte
	base      int
	committed int
	// generation counts the Resets (see Generation).
	generation uint64
	// tail is where extends reads the file's last bytes again.
	tail [followMarkerBytes]byte
}

// NewFollower returns a follower of the store file in dir ("" or "." for
// the root) that has read nothing yet.
func NewFollower(dir string) *Follower {
	if dir == "" {
		dir = "."
	}
	f := &Follower{name: path.Join(dir, FileName)}
	f.Reset()
	return f
}

// Reset forgets every byte read: the next Follow reads the file from its
// start (after a rewrite, or a reopen that truncated a torn tail).
func (f *Follower) Reset() {
	f.s = &Store{name: f.name, groups: map[uint64]*group{}, tab: newTrackedTables()}
	f.buf, f.base, f.committed = f.buf[:0], 0, 0
	f.generation++
}

// Store is what the durable bytes read so far hold: every transaction
// replayed. It is read only (its accessors: RaftStorage, AppliedIndex,
// LogScan, StateScan, PositionGet, OutboxScan, ConsumerGroupScan,
// Scopes) and valid until the next Follow or Reset.
func (f *Follower) Store() *Store { return f.s }

// Follow reads the file's durable bytes past those already read and
// replays every whole transaction among them; a tail that is not a whole
// transaction yet waits for the next Follow. A file that is gone or
// shorter than a header holds nothing durable yet. Damage (a frame or
// marker that fails its checksum, a transaction out of sequence) is an
// ErrCorrupt error; the follower is then Reset.
func (f *Follower) Follow(src DurableSource) error {
	_, size, err := src.DurableReadAt(f.name, nil, 0)
	if err != nil {
		f.Reset()
		if errors.Is(err, vfs.ErrNotExist) {
			return nil
		}
		return fmt.Errorf("logstore: follow %s: %w", f.name, err)
	}
	if !f.extends(src, size) {
		f.Reset()
	}
	if err := f.readTo(src, size); err != nil {
		f.Reset()
		return err
	}
	if f.committed == 0 {
		if !hasHeader(f.buf) {
			return nil // created, its header not yet durable
		}
		f.committed = len(headerFrame())
	}
	end, _, err := f.s.replayFrom(f.buf, f.base, f.committed-f.base)
	if err == nil && f.s.sealMissing != nil {
		err = f.s.corrupt(f.base+end, "the durable bytes end between a commit marker's two copies")
	}
	if err != nil {
		f.Reset()
		return err
	}
	f.committed = f.base + end
	f.dropReplayed()
	return nil
}

// FollowRewritten is Follow for a file its writer has just rewritten
// (replaced by one holding only its content, Store.Rewrite). When the
// durable file starts with, byte for byte, the rewrite of what the
// follower holds, it holds what those bytes say already: the bytes a
// rewrite writes are the canonical encoding of a content, and what the
// follower holds was decoded from the old file's durable bytes, apart
// from the writer, so the check reads nothing the writer claims. The
// follower then keeps what it holds, in the same generation, and reads on
// past the rewrite. Otherwise (a rewrite that lost or changed a row, or
// transactions the follower had not read yet) it reads the new file from
// its start, as Follow after a Reset.
func (f *Follower) FollowRewritten(src DurableSource) error {
	if f.committed != 0 && f.matchesRewrite(src) {
		return f.Follow(src)
	}
	f.Reset()
	return f.Follow(src)
}

// matchesRewrite reports whether src's durable file starts with the
// rewrite of what f holds, and if so makes f stand at its end.
func (f *Follower) matchesRewrite(src DurableSource) bool {
	_, size, err := src.DurableReadAt(f.name, nil, 0)
	if err != nil {
		return false
	}
	want, seq, err := f.s.rewrittenFile(size)
	if err != nil || int64(len(want)) > size {
		return false
	}
	chunk := make([]byte, min(len(want), followKeepBytesMin))
	for off := 0; off < len(want); {
		n, _, err := src.DurableReadAt(f.name, chunk[:min(len(chunk), len(want)-off)], int64(off))
		if err != nil || n == 0 || !bytes.Equal(chunk[:n], want[off:off+n]) {
			f.Reset()
			return false
		}
		off += n
	}
	keep := min(len(want), followMarkerBytes)
	f.buf = append(f.buf[:0], want[len(want)-keep:]...)
	f.base, f.committed, f.s.seq = len(want)-keep, len(want), seq
	return true
}

// followKeepBytesMin is how many replayed bytes a follower lets pile up
// before it drops them: dropping copies the tail, so it waits for a few
// transactions' worth.
const followKeepBytesMin = 64 << 10

// followBufBytesMax is the largest buffer a follower keeps for its next
// reads: a larger one (a whole file read at once) is let go once its
// bytes are replayed.
const followBufBytesMax = 4 * followKeepBytesMin

// dropReplayed forgets the bytes before the last whole transaction that
// the extends check does not need, moving the rest to the front of the
// buffer, or to a buffer of their size when the old one is past
// followBufBytesMax and much larger (so a file's bytes are not held
// twice: the decoded store holds what they said).
func (f *Follower) dropReplayed() {
	keep := min(f.committed, f.base+len(f.buf)-followMarkerBytes) - f.base
	if keep < followKeepBytesMin {
		return
	}
	tail := f.buf[keep:]
	if cap(f.buf) > followBufBytesMax && cap(f.buf) > 4*len(tail)+followKeepBytesMin {
		f.buf = append(make([]byte, 0, len(tail)+followKeepBytesMin), tail...)
	} else {
		f.buf = f.buf[:copy(f.buf, tail)]
	}
	f.base += keep
	if invariantsOn && (f.base > f.committed || f.committed > f.base+len(f.buf)) {
		panic(fmt.Sprintf("logstore: follower of %s keeps bytes [%d, %d) but replayed up to %d", f.name, f.base, f.base+len(f.buf), f.committed))
	}
}

// followMarkerBytes is how much of the file's end a follower checks again
// before reading on: a rewritten file of at least the same length almost
// never holds the same bytes there, and a caller that knows of a rewrite
// resets the follower anyway.
const followMarkerBytes = 2 * commitFrameBytes

// extends reports whether the durable file of size bytes still starts
// with the bytes read so far, judged by its length and its last
// followMarkerBytes.
func (f *Follower) extends(src DurableSource, size int64) bool {
	if size < int64(f.base+len(f.buf)) {
		return false
	}
	from := max(0, len(f.buf)-followMarkerBytes)
	tail := f.tail[:len(f.buf)-from]
	n, _, err := src.DurableReadAt(f.name, tail, int64(f.base+from))
	return err == nil && bytes.Equal(tail[:n], f.buf[from:])
}

// readTo appends the durable bytes from the end read so far up to size.
func (f *Follower) readTo(src DurableSource, size int64) error {
	have := len(f.buf)
	end := f.base + have
	if size <= int64(end) {
		return nil
	}
	f.buf = slices.Grow(f.buf, int(size)-end)[:have+int(size)-end]
	n, _, err := src.DurableReadAt(f.name, f.buf[have:], int64(end))
	if err != nil {
		return fmt.Errorf("logstore: follow %s at byte %d: %w", f.name, end, err)
	}
	f.buf = f.buf[:have+n]
	return nil
}
