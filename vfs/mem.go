package vfs

import (
	"fmt"
	"io"
	"path"
	"sort"
)

// CrashPolicy decides what a file holds after a crash, given the bytes
// last synced and the bytes it held at the crash. Both are copies made for
// the policy (synced may share current's array): the file keeps the slice
// it returns, which may be either of them, a prefix of one, or new bytes.
type CrashPolicy func(name string, synced, current []byte) []byte

// LoseUnsynced is the plain power-loss policy: exactly the synced bytes
// survive.
func LoseUnsynced(_ string, synced, _ []byte) []byte { return synced }

// KeepUnsynced is the crash policy of a disk whose cache was flushed just
// before the power went: every byte written survives, synced or not.
func KeepUnsynced(_ string, _, current []byte) []byte { return current }

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
			return synced
		}
		firstSector := len(synced) / SectorBytes
		lastSector := (len(current) - 1) / SectorBytes
		tailSectors := lastSector - firstSector + 1
		n := keepSectors(name, tailSectors)
		if n <= 0 {
			return synced
		}
		if n > tailSectors {
			n = tailSectors
		}
		end := (firstSector + n) * SectorBytes
		if end > len(current) {
			end = len(current)
		}
		return current[:end]
	}
}

type memInode struct {
	data *content
	// synced and syncedBytes are what a crash keeps: synced's first
	// syncedBytes bytes. A Sync makes synced the data itself, so the fsync
	// costs no copy: appends never write below data's size, and Truncate
	// and Create give the file a new content, leaving synced on the old one.
	// synced is nil before the first Sync.
	synced      *content
	syncedBytes int
}

// syncedAndCurrent returns fresh copies of what a crash would keep and of
// what the file holds now, for a crash policy (one copy when the synced
// bytes are a prefix of the current ones).
func (ino *memInode) syncedAndCurrent() (synced, current []byte) {
	current = ino.data.bytes(ino.data.size)
	if ino.synced == ino.data {
		return current[:ino.syncedBytes:ino.syncedBytes], current
	}
	if ino.synced == nil {
		return nil, current
	}
	return ino.synced.bytes(ino.syncedBytes), current
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
		ino.data = &content{}
	} else {
		ino = &memInode{data: &content{}}
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
			synced, current := old.syncedAndCurrent()
			data := contentOf(policy(name, synced, current))
			// The policy's slice is the file's own, all of it synced, as
			// after a Sync.
			ino = &memInode{data: data, synced: data, syncedBytes: data.size}
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
	if ino.synced == ino.data {
		return ino.data.size - ino.syncedBytes
	}
	synced, current := ino.syncedAndCurrent()
	if len(current) >= len(synced) && string(current[:len(synced)]) == string(synced) {
		return len(current) - len(synced)
	}
	return len(current)
}

// DurableReadAt reads into p the bytes of name from offsetBytes on, as a
// crash that loses every unsynced byte (LoseUnsynced) would leave them:
// the file its durable directory entry names, up to its synced length. It
// returns how many bytes it read and that durable length; a name with no
// durable entry is ErrNotExist. It changes nothing, so a checker may read
// what is durable while the process runs on.
func (m *Mem) DurableReadAt(name string, p []byte, offsetBytes int64) (n int, sizeBytes int64, err error) {
	c, err := Clean(name)
	if err != nil {
		return 0, 0, err
	}
	ino, ok := m.durable[c]
	if !ok {
		return 0, 0, fmt.Errorf("vfs: durable read of %s: %w", c, ErrNotExist)
	}
	if offsetBytes < 0 {
		return 0, 0, fmt.Errorf("vfs: durable read of %s at negative offset %d", c, offsetBytes)
	}
	if ino.synced == nil || offsetBytes >= int64(ino.syncedBytes) {
		return 0, int64(ino.syncedBytes), nil
	}
	want := min(len(p), ino.syncedBytes-int(offsetBytes))
	return ino.synced.readAt(p[:want], int(offsetBytes)), int64(ino.syncedBytes), nil
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
	if offsetBytes < 0 || offsetBytes >= int64(ino.data.size) {
		return fmt.Errorf("vfs: corrupt %s: offset %d outside its %d bytes", c, offsetBytes, ino.data.size)
	}
	// When the synced bytes are the data's own, one flip changes both.
	ino.data.flip(int(offsetBytes), mask)
	if ino.synced != ino.data && offsetBytes < int64(ino.syncedBytes) {
		ino.synced.flip(int(offsetBytes), mask)
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
	if off >= int64(f.ino.data.size) {
		return 0, io.EOF
	}
	n := f.ino.data.readAt(p, int(off))
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (f *memFile) Write(p []byte) (int, error) {
	if err := f.live(); err != nil {
		return 0, err
	}
	f.ino.data.append(p)
	f.fs.writtenBytes += uint64(len(p))
	return len(p), nil
}

func (f *memFile) Size() (int64, error) {
	if err := f.live(); err != nil {
		return 0, err
	}
	return int64(f.ino.data.size), nil
}

func (f *memFile) Truncate(sizeBytes int64) error {
	if err := f.live(); err != nil {
		return err
	}
	if sizeBytes < 0 {
		return fmt.Errorf("vfs: truncate %s to negative size %d", f.name, sizeBytes)
	}
	if sizeBytes <= int64(f.ino.data.size) {
		f.ino.data = contentOf(f.ino.data.bytes(int(sizeBytes)))
		return nil
	}
	f.ino.data.append(make([]byte, sizeBytes-int64(f.ino.data.size)))
	return nil
}

func (f *memFile) Sync() error {
	if err := f.live(); err != nil {
		return err
	}
	f.ino.synced, f.ino.syncedBytes = f.ino.data, f.ino.data.size
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
