package vfs

import (
	"fmt"
	"io"
	"path"
	"sort"
)

// CrashPolicy decides what a file holds after a crash, given the bytes
// last synced and the bytes it held at the crash. It must return a slice it
// may hand over (not alias current).
type CrashPolicy func(name string, synced, current []byte) []byte

// LoseUnsynced is the plain power-loss policy: exactly the synced bytes
// survive.
func LoseUnsynced(_ string, synced, _ []byte) []byte { return clone(synced) }

// KeepUnsynced is the crash policy of a disk whose cache was flushed just
// before the power went: every byte written survives, synced or not.
func KeepUnsynced(_ string, _, current []byte) []byte { return clone(current) }

// SectorBytes is the sector size torn writes are cut at.
const SectorBytes = 512

// TornTail returns a policy that keeps the synced bytes plus the first n
// sectors of the unsynced tail, where n = keepSectors(name, tailSectors) is
// clamped to [0, tailSectors]. Sectors are aligned to file offsets, so the
// last kept sector may hold only part of a write. A file whose current
// content does not extend its synced content (it was truncated or rewritten
// since the sync) keeps just the synced bytes.
func TornTail(keepSectors func(name string, tailSectors int) int) CrashPolicy {
	return func(name string, synced, current []byte) []byte {
		if len(current) <= len(synced) || string(current[:len(synced)]) != string(synced) {
			return clone(synced)
		}
		firstSector := len(synced) / SectorBytes
		lastSector := (len(current) - 1) / SectorBytes
		tailSectors := lastSector - firstSector + 1
		n := keepSectors(name, tailSectors)
		if n <= 0 {
			return clone(synced)
		}
		if n > tailSectors {
			n = tailSectors
		}
		end := (firstSector + n) * SectorBytes
		if end > len(current) {
			end = len(current)
		}
		return clone(current[:end])
	}
}

type memInode struct {
	data []byte
	// synced is what a crash keeps. After a Sync it aliases data's first
	// len(data) bytes with its capacity capped, so the fsync costs no copy:
	// appends never write below len(data), Truncate and Create replace data
	// with a fresh array, and CorruptByte unshares before flipping bits.
	synced []byte
}

// Mem is an in-memory FS that tracks which file bytes and which directory
// entries are durable. Crash reverts it to what a power loss would leave.
// Directories made by MkdirAll are durable at once (a simplification: a store
// creates its directory once, before writing anything). Mem is not safe for
// concurrent use; the simulator drives it from one goroutine.
type Mem struct {
	cur     map[string]*memInode // name -> inode as the running process sees it
	durable map[string]*memInode // name -> inode as a crash would leave it
	dirs    map[string]bool
	// generation counts crashes; handles from an older generation are dead.
	generation uint64
	// writtenBytes counts the bytes every Write ever took, across crashes.
	writtenBytes uint64
}

// WrittenBytes is how many bytes were written to the filesystem's files
// since NewMem, across crashes: the disk's write volume.
func (m *Mem) WrittenBytes() uint64 { return m.writtenBytes }

// NewMem returns an empty in-memory filesystem with its root directory.
func NewMem() *Mem {
	return &Mem{cur: map[string]*memInode{}, durable: map[string]*memInode{}, dirs: map[string]bool{".": true}}
}

type memFile struct {
	fs         *Mem
	name       string
	ino        *memInode
	generation uint64
	closed     bool
}

func (m *Mem) parentExists(name string) error {
	if !m.dirs[path.Dir(name)] {
		return fmt.Errorf("vfs: %s: parent directory %s: %w", name, path.Dir(name), ErrNotExist)
	}
	return nil
}

// Create implements FS.
func (m *Mem) Create(name string) (File, error) {
	c, err := Clean(name)
	if err != nil {
		return nil, err
	}
	if err := m.parentExists(c); err != nil {
		return nil, err
	}
	ino, ok := m.cur[c]
	if ok {
		ino.data = ino.data[:0:0]
	} else {
		ino = &memInode{}
		m.cur[c] = ino
	}
	return &memFile{fs: m, name: c, ino: ino, generation: m.generation}, nil
}

// Open implements FS.
func (m *Mem) Open(name string) (File, error) {
	c, err := Clean(name)
	if err != nil {
		return nil, err
	}
	ino, ok := m.cur[c]
	if !ok {
		return nil, fmt.Errorf("vfs: open %s: %w", c, ErrNotExist)
	}
	return &memFile{fs: m, name: c, ino: ino, generation: m.generation}, nil
}

// Remove implements FS.
func (m *Mem) Remove(name string) error {
	c, err := Clean(name)
	if err != nil {
		return err
	}
	if _, ok := m.cur[c]; !ok {
		return fmt.Errorf("vfs: remove %s: %w", c, ErrNotExist)
	}
	delete(m.cur, c)
	return nil
}

// Rename implements FS.
func (m *Mem) Rename(oldname, newname string) error {
	o, err := Clean(oldname)
	if err != nil {
		return err
	}
	n, err := Clean(newname)
	if err != nil {
		return err
	}
	ino, ok := m.cur[o]
	if !ok {
		return fmt.Errorf("vfs: rename %s: %w", o, ErrNotExist)
	}
	if err := m.parentExists(n); err != nil {
		return err
	}
	delete(m.cur, o)
	m.cur[n] = ino
	return nil
}

// List implements FS.
func (m *Mem) List(dir string) ([]string, error) {
	d, err := Clean(dir)
	if err != nil {
		return nil, err
	}
	if !m.dirs[d] {
		return nil, fmt.Errorf("vfs: list %s: %w", d, ErrNotExist)
	}
	var names []string
	for name := range m.cur {
		if path.Dir(name) == d {
			names = append(names, path.Base(name))
		}
	}
	sort.Strings(names)
	return names, nil
}

// MkdirAll implements FS.
func (m *Mem) MkdirAll(dir string) error {
	d, err := Clean(dir)
	if err != nil {
		return err
	}
	for ; d != "." && !m.dirs[d]; d = path.Dir(d) {
		if _, isFile := m.cur[d]; isFile {
			return fmt.Errorf("vfs: mkdir %s: a file has that name", d)
		}
		m.dirs[d] = true
	}
	return nil
}

// SyncDir implements FS: the durable entries of dir become the current ones.
func (m *Mem) SyncDir(dir string) error {
	d, err := Clean(dir)
	if err != nil {
		return err
	}
	if !m.dirs[d] {
		return fmt.Errorf("vfs: sync dir %s: %w", d, ErrNotExist)
	}
	for name := range m.durable {
		if path.Dir(name) == d {
			delete(m.durable, name)
		}
	}
	for name, ino := range m.cur {
		if path.Dir(name) == d {
			m.durable[name] = ino
		}
	}
	return nil
}

// Crash simulates a power loss: the durable directory entries come back,
// each file holding what policy leaves of it (LoseUnsynced if nil), and
// every open handle dies. Files are visited in name order, so a policy
// drawing from a seeded generator stays deterministic.
func (m *Mem) Crash(policy CrashPolicy) {
	if policy == nil {
		policy = LoseUnsynced
	}
	names := make([]string, 0, len(m.durable))
	for name := range m.durable {
		names = append(names, name)
	}
	sort.Strings(names)
	m.cur = make(map[string]*memInode, len(names))
	byOld := map[*memInode]*memInode{}
	for _, name := range names {
		old := m.durable[name]
		ino, seen := byOld[old]
		if !seen {
			data := policy(name, old.synced, old.data)
			// The policy's slice is the file's own, all of it synced: synced
			// aliases it, capped, as after a Sync.
			ino = &memInode{data: data, synced: data[:len(data):len(data)]}
			byOld[old] = ino
		}
		m.cur[name] = ino
		m.durable[name] = ino
	}
	m.generation++
}

// UnsyncedBytes returns how many bytes of name a LoseUnsynced crash would
// lose or revert right now (0 for a missing file).
func (m *Mem) UnsyncedBytes(name string) int {
	ino, ok := m.cur[name]
	if !ok {
		return 0
	}
	if len(ino.data) >= len(ino.synced) && string(ino.data[:len(ino.synced)]) == string(ino.synced) {
		return len(ino.data) - len(ino.synced)
	}
	return len(ino.data)
}

// CorruptByte flips the bits in mask of the byte at offsetBytes of name, in
// both its current and its synced content, as a bad sector would.
func (m *Mem) CorruptByte(name string, offsetBytes int64, mask byte) error {
	c, err := Clean(name)
	if err != nil {
		return err
	}
	ino, ok := m.cur[c]
	if !ok {
		return fmt.Errorf("vfs: corrupt %s: %w", c, ErrNotExist)
	}
	if offsetBytes < 0 || offsetBytes >= int64(len(ino.data)) {
		return fmt.Errorf("vfs: corrupt %s: offset %d outside its %d bytes", c, offsetBytes, len(ino.data))
	}
	ino.synced = clone(ino.synced)
	ino.data[offsetBytes] ^= mask
	if offsetBytes < int64(len(ino.synced)) {
		ino.synced[offsetBytes] ^= mask
	}
	return nil
}

// Names returns every current file name, sorted.
func (m *Mem) Names() []string {
	names := make([]string, 0, len(m.cur))
	for name := range m.cur {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func (f *memFile) live() error {
	if f.closed || f.generation != f.fs.generation {
		return fmt.Errorf("vfs: %s: %w", f.name, ErrClosed)
	}
	return nil
}

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	if err := f.live(); err != nil {
		return 0, err
	}
	if off < 0 {
		return 0, fmt.Errorf("vfs: read %s at negative offset %d", f.name, off)
	}
	if off >= int64(len(f.ino.data)) {
		return 0, io.EOF
	}
	n := copy(p, f.ino.data[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (f *memFile) Write(p []byte) (int, error) {
	if err := f.live(); err != nil {
		return 0, err
	}
	f.ino.data = appendDoubling(f.ino.data, p)
	f.fs.writtenBytes += uint64(len(p))
	return len(p), nil
}

func (f *memFile) Size() (int64, error) {
	if err := f.live(); err != nil {
		return 0, err
	}
	return int64(len(f.ino.data)), nil
}

func (f *memFile) Truncate(sizeBytes int64) error {
	if err := f.live(); err != nil {
		return err
	}
	if sizeBytes < 0 {
		return fmt.Errorf("vfs: truncate %s to negative size %d", f.name, sizeBytes)
	}
	if sizeBytes <= int64(len(f.ino.data)) {
		f.ino.data = clone(f.ino.data[:sizeBytes])
		return nil
	}
	f.ino.data = append(f.ino.data, make([]byte, sizeBytes-int64(len(f.ino.data)))...)
	return nil
}

func (f *memFile) Sync() error {
	if err := f.live(); err != nil {
		return err
	}
	n := len(f.ino.data)
	f.ino.synced = f.ino.data[:n:n]
	return nil
}

func (f *memFile) Close() error {
	if f.closed {
		return fmt.Errorf("vfs: close %s: %w", f.name, ErrClosed)
	}
	f.closed = true
	return nil
}

func (f *memFile) Name() string { return f.name }

// appendDoubling appends p to data, at least doubling the capacity when it
// must grow: append's 1.25x growth for large slices re-copies a growing
// write-ahead file far more often. The new capacity is also twice what is
// needed, so a file written whole at once (a store's rewrite) can double
// before it is copied again.
func appendDoubling(data, p []byte) []byte {
	if need := len(data) + len(p); need > cap(data) {
		// append of a make is one allocation that clears only the added
		// part (make then copy cleared all of it first).
		data = append(data[:len(data):len(data)], make([]byte, max(2*need, 2*cap(data), 4096)-len(data))...)[:len(data)]
	}
	return append(data, p...)
}

func clone(b []byte) []byte {
	if b == nil {
		return nil
	}
	return append(make([]byte, 0, len(b)), b...)
}
