package vfs

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
)

// FS is the filesystem a store needs: append-only files, atomic rename, and
// explicit durability for both file contents (File.Sync) and directory
// entries (SyncDir).
type FS interface {
	// Create makes name an empty file (truncating an existing one), open
	// for reading and appending. The entry is durable only after SyncDir.
	Create(name string) (File, error)
	// Open opens an existing file for reading and appending.
	Open(name string) (File, error)
	// Remove deletes name; durable only after SyncDir.
	Remove(name string) error
	// Rename moves oldname to newname, replacing it; durable only after SyncDir.
	Rename(oldname, newname string) error
	// List returns the file names directly inside dir, sorted.
	List(dir string) ([]string, error)
	// MkdirAll creates dir and its parents.
	MkdirAll(dir string) error
	// SyncDir makes dir's entries (creations, renames, removals) durable.
	SyncDir(dir string) error
}

// File is an open file: random reads, appends at the end, truncation and
// fsync.
type File interface {
	io.ReaderAt
	// Write appends p at the end of the file.
	Write(p []byte) (int, error)
	// Size returns the current length in bytes.
	Size() (int64, error)
	// Truncate cuts or extends the file to sizeBytes.
	Truncate(sizeBytes int64) error
	// Sync makes every byte written so far durable.
	Sync() error
	// Close releases the handle; further calls return an error.
	Close() error
	// Name is the name the file was opened under.
	Name() string
}

// ErrBadName marks a name refused because it is absolute, empty or climbs
// out of the root.
var ErrBadName = errors.New("vfs: bad file name")

// ErrClosed is returned by a handle used after Close or after a crash.
var ErrClosed = fs.ErrClosed

// ErrNotExist is returned for a missing file; test with errors.Is.
var ErrNotExist = fs.ErrNotExist

// Clean validates name and returns its canonical form.
func Clean(name string) (string, error) {
	if name == "" || strings.HasPrefix(name, "/") {
		return "", fmt.Errorf("%w: %q", ErrBadName, name)
	}
	c := path.Clean(name)
	if c == ".." || strings.HasPrefix(c, "../") {
		return "", fmt.Errorf("%w: %q leaves the root", ErrBadName, name)
	}
	return c, nil
}

// ReadAll returns the whole content of name.
func ReadAll(fsys FS, name string) ([]byte, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	size, err := f.Size()
	if err != nil {
		return nil, err
	}
	buf := make([]byte, size)
	n, err := f.ReadAt(buf, 0)
	if err != nil && !(errors.Is(err, io.EOF) && int64(n) == size) {
		return nil, fmt.Errorf("vfs: read %s: %w", name, err)
	}
	return buf, nil
}
