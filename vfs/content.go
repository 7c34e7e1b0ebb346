package vfs

import "fmt"

// chunkBytes is the largest array a growing file's bytes are kept in, and
// chunkBytesMin the smallest. Appends fill the last chunk and then start a
// new one as large as the file so far (within those bounds, and at least
// the write), so a file is never copied as it grows (a contiguous slice
// re-copied the whole file at every doubling, the largest allocation of a
// simulated run) and a small file rewritten often stays small.
const (
	chunkBytes    = 64 << 10
	chunkBytesMin = 512
)

// content is a file's bytes, kept in chunks. An append writes only past
// size, so the first n bytes of a content, once written, never change while
// it grows: a Sync can keep a content and a length as its durable view
// without copying (see memInode). Every other change (a shrinking truncate,
// a recreate, a crash) builds a new content; only a flipped bit changes
// bytes in place.
//
// Invariant: size is the sum of the chunks' lengths, and only the last
// chunk may have capacity past its length (an append fills it first).
type content struct {
	chunks [][]byte
	size   int
}

// contentOf adopts b (which the caller hands over) as a content.
func contentOf(b []byte) *content {
	if len(b) == 0 {
		return &content{}
	}
	return &content{chunks: [][]byte{b}, size: len(b)}
}

// append adds p's bytes at the end.
func (c *content) append(p []byte) {
	for len(p) > 0 {
		last := len(c.chunks) - 1
		if last < 0 || len(c.chunks[last]) == cap(c.chunks[last]) {
			c.chunks = append(c.chunks, make([]byte, 0, max(len(p), min(chunkBytes, max(chunkBytesMin, c.size)))))
			last++
		}
		room := min(cap(c.chunks[last])-len(c.chunks[last]), len(p))
		c.chunks[last] = append(c.chunks[last], p[:room]...)
		p, c.size = p[room:], c.size+room
	}
}

// readAt copies the bytes from off into p and returns how many it copied
// (fewer than len(p) at the end; 0 from off >= size).
func (c *content) readAt(p []byte, off int) int {
	n := 0
	for _, ch := range c.chunks {
		if len(p) == 0 {
			break
		}
		if off >= len(ch) {
			off -= len(ch)
			continue
		}
		k := copy(p, ch[off:])
		n, p, off = n+k, p[k:], 0
	}
	return n
}

// bytes returns a fresh copy of the first n bytes (nil for none).
func (c *content) bytes(n int) []byte {
	if n > c.size {
		panic(fmt.Sprintf("vfs: %d bytes asked of a %d-byte file", n, c.size))
	}
	if n == 0 {
		return nil
	}
	out := make([]byte, n)
	c.readAt(out, 0)
	return out
}

// flip xors mask into the byte at off, in place.
func (c *content) flip(off int, mask byte) {
	if off < 0 || off >= c.size {
		panic(fmt.Sprintf("vfs: flip at byte %d of a %d-byte file", off, c.size))
	}
	for _, ch := range c.chunks {
		if off < len(ch) {
			ch[off] ^= mask
			return
		}
		off -= len(ch)
	}
}
