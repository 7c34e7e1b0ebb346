package logstore

import (
	"errors"
	"fmt"
	"path"

	"github.com/felixsim/felixsim/vfs"
)

// FileName is the write-ahead file's name inside the store's directory.
const FileName = "logstore.wal"

// Options configures Open; build it by field name.
type Options struct {
	// FS is the filesystem the store lives on.
	FS vfs.FS
	// Dir is the store's directory inside FS ("" or "." for the root).
	Dir string
	// Defects plants bugs for checker tests; zero in production.
	Defects Defects
}

// ErrCorrupt marks a store file whose content cannot be trusted: damage
// before its tail, or a transaction that contradicts the ones before it.
var ErrCorrupt = errors.New("logstore: corrupt store")

// ErrFailed marks a store that refuses writes because an earlier write or
// fsync failed and the file's content is unknown; reopen it.
var ErrFailed = errors.New("logstore: store failed")

// Store is one node's durable store. It is not safe for concurrent use: the
// node drives it from one goroutine.
type Store struct {
	fs   vfs.FS
	dir  string
	name string
	f    vfs.File
	// sizeBytes is the file length up to the last committed transaction.
	sizeBytes int64
	// seq is the sequence number of the last committed transaction.
	seq uint64
	// sealMissing is, during Open, the last marker whose copy recovery
	// must restore.
	sealMissing []byte
	// recovery is what Open found at the file's tail.
	recovery Recovery
	// failed, once set, refuses every write.
	failed  error
	closed  bool
	defects Defects
	// groups holds each group's raft state by id.
	//
	// Invariant: an entry, once added, is never removed or replaced
	// (install overwrites the group in place), so a GroupStorage may keep
	// the pointer.
	groups map[uint64]*group
	tab    tables
	// encodeBuf is the last Commit's encode buffer, reused by the next one.
	//
	// Invariant: cap(encodeBuf) <= encodeBufKeepBytesMax.
	encodeBuf []byte
	// ownRows holds the row slices of the last batch Commit installed,
	// cleared, for ownBatch to reuse (see keepOwnRows for its invariant).
	ownRows Batch
	// planGroups holds, cleared, the groups the last installed plan
	// computed, for the next plan to reuse.
	//
	// Invariant: cap(planGroups) <= ownRowsKeepMax, and its whole array
	// holds zero groups.
	planGroups []group
	// markerBuf holds the commit marker being written, so writing one
	// allocates nothing.
	markerBuf [2 * commitFrameBytes]byte
	// replayScratch is what replaying a file keeps between transactions, and a
	// Follower's store between follows.
	replayScratch replayScratch
}

// Open opens the store in opts.Dir, creating it if it does not exist, and
// replays its file: a torn final transaction is truncated away, damage
// before the tail is an ErrCorrupt error naming the file and byte offset.
func Open(opts Options) (*Store, error) {
	if opts.FS == nil {
		return nil, errors.New("logstore: open refused: Options.FS is nil")
	}
	if opts.Defects >= defectEnd {
		return nil, fmt.Errorf("logstore: open refused: unknown defects %s", opts.Defects)
	}
	dir := opts.Dir
	if dir == "" {
		dir = "."
	}
	s := &Store{fs: opts.FS, dir: dir, name: path.Join(dir, FileName), groups: map[uint64]*group{}, tab: newTables(), defects: opts.Defects}
	if err := opts.FS.MkdirAll(dir); err != nil {
		return nil, fmt.Errorf("logstore: open %s: %w", dir, err)
	}
	if err := s.removeRewriteLeftover(); err != nil {
		return nil, err
	}
	f, err := opts.FS.Open(s.name)
	if errors.Is(err, vfs.ErrNotExist) {
		return s, s.create()
	}
	if err != nil {
		return nil, fmt.Errorf("logstore: open %s: %w", s.name, err)
	}
	s.f = f
	if err := s.replayFile(); err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

// create writes a fresh file holding just the header, durably.
func (s *Store) create() error {
	f, err := s.fs.Create(s.name)
	if err != nil {
		return fmt.Errorf("logstore: create %s: %w", s.name, err)
	}
	h := headerFrame()
	if _, err := f.Write(h); err != nil {
		f.Close()
		return fmt.Errorf("logstore: write header of %s: %w", s.name, err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("logstore: sync %s: %w", s.name, err)
	}
	// The file's entry, then the directory's own entries up to the root:
	// a directory made by Open is durable only once its parent is synced.
	for d := s.dir; ; d = path.Dir(d) {
		if err := s.fs.SyncDir(d); err != nil {
			f.Close()
			return fmt.Errorf("logstore: sync directory %s: %w", d, err)
		}
		if d == "." {
			break
		}
	}
	s.f, s.sizeBytes = f, int64(len(h))
	return nil
}

// Close releases the file. Everything committed is already durable.
func (s *Store) Close() error {
	if s.closed {
		return fmt.Errorf("logstore: close %s: already closed", s.name)
	}
	s.closed = true
	return s.f.Close()
}

// Name returns the path of the store's file inside its FS.
func (s *Store) Name() string { return s.name }
