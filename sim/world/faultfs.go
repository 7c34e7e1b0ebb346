package world

import (
	"errors"
	"fmt"

	"github.com/felixsim/felixsim/vfs"
)

// ErrInjected marks every disk error the simulator injects; test with
// errors.Is.
var ErrInjected = errors.New("sim: injected fault")

// Op names a filesystem operation an Injector is asked about; zero is invalid.
type Op uint8

// Filesystem operations.
const (
	opInvalid Op = iota
	OpCreate
	OpOpen
	OpRemove
	OpRename
	OpList
	OpMkdirAll
	OpSyncDir
	OpRead
	OpWrite
	OpSize
	OpTruncate
	OpSync
	OpClose
)

var opNames = [...]string{"invalid", "create", "open", "remove", "rename", "list", "mkdirall", "syncdir", "read", "write", "size", "truncate", "sync", "close"}

// String names the operation.
func (o Op) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return fmt.Sprintf("op(%d)", uint8(o))
}

// Injector is asked before every filesystem operation; a non-nil error
// (wrapping ErrInjected) refuses the operation, which then never reaches
// the wrapped filesystem.
type Injector interface {
	// Before decides the fate of op on name.
	Before(op Op, name string) error
}

// fsObserver is told, after an operation succeeded, what it did to file
// content (an Injector that tracks damage implements it).
type fsObserver interface {
	afterRead(name string, offBytes int64, n int)
	afterTruncate(name string, sizeBytes int64)
	afterReset(name string) // created afresh or removed
	afterRename(oldname, newname string)
}

// observe calls fn with inj's observer, if it has one.
func observe(inj Injector, fn func(o fsObserver)) {
	if o, ok := inj.(fsObserver); ok {
		fn(o)
	}
}

// cleanName is name as the memory filesystem stores it (name itself if
// it does not clean).
func cleanName(name string) string {
	if c, err := vfs.Clean(name); err == nil {
		return c
	}
	return name
}

// FaultFS wraps a vfs.FS, asking an Injector before passing each call on.
type FaultFS struct {
	inner vfs.FS
	inj   Injector
}

var _ vfs.FS = (*FaultFS)(nil)

// NewFaultFS wraps inner with inj.
func NewFaultFS(inner vfs.FS, inj Injector) *FaultFS { return &FaultFS{inner: inner, inj: inj} }

// Create implements vfs.FS.
func (f *FaultFS) Create(name string) (vfs.File, error) {
	if err := f.inj.Before(OpCreate, name); err != nil {
		return nil, err
	}
	file, err := f.inner.Create(name)
	if err != nil {
		return nil, err
	}
	observe(f.inj, func(o fsObserver) { o.afterReset(cleanName(name)) })
	return &faultFile{inner: file, inj: f.inj}, nil
}

// Open implements vfs.FS.
func (f *FaultFS) Open(name string) (vfs.File, error) {
	if err := f.inj.Before(OpOpen, name); err != nil {
		return nil, err
	}
	file, err := f.inner.Open(name)
	if err != nil {
		return nil, err
	}
	return &faultFile{inner: file, inj: f.inj}, nil
}

// Remove implements vfs.FS.
func (f *FaultFS) Remove(name string) error {
	if err := f.inj.Before(OpRemove, name); err != nil {
		return err
	}
	if err := f.inner.Remove(name); err != nil {
		return err
	}
	observe(f.inj, func(o fsObserver) { o.afterReset(cleanName(name)) })
	return nil
}

// Rename implements vfs.FS.
func (f *FaultFS) Rename(oldname, newname string) error {
	if err := f.inj.Before(OpRename, oldname); err != nil {
		return err
	}
	if err := f.inner.Rename(oldname, newname); err != nil {
		return err
	}
	observe(f.inj, func(o fsObserver) { o.afterRename(cleanName(oldname), cleanName(newname)) })
	return nil
}

// List implements vfs.FS.
func (f *FaultFS) List(dir string) ([]string, error) {
	if err := f.inj.Before(OpList, dir); err != nil {
		return nil, err
	}
	return f.inner.List(dir)
}

// MkdirAll implements vfs.FS.
func (f *FaultFS) MkdirAll(dir string) error {
	if err := f.inj.Before(OpMkdirAll, dir); err != nil {
		return err
	}
	return f.inner.MkdirAll(dir)
}

// SyncDir implements vfs.FS.
func (f *FaultFS) SyncDir(dir string) error {
	if err := f.inj.Before(OpSyncDir, dir); err != nil {
		return err
	}
	return f.inner.SyncDir(dir)
}

// faultFile wraps one open vfs.File the same way.
type faultFile struct {
	inner vfs.File
	inj   Injector
}

func (f *faultFile) ReadAt(p []byte, off int64) (int, error) {
	if err := f.inj.Before(OpRead, f.inner.Name()); err != nil {
		return 0, err
	}
	n, err := f.inner.ReadAt(p, off)
	if n > 0 {
		observe(f.inj, func(o fsObserver) { o.afterRead(f.inner.Name(), off, n) })
	}
	return n, err
}

func (f *faultFile) Write(p []byte) (int, error) {
	if err := f.inj.Before(OpWrite, f.inner.Name()); err != nil {
		return 0, err
	}
	return f.inner.Write(p)
}

func (f *faultFile) Size() (int64, error) {
	if err := f.inj.Before(OpSize, f.inner.Name()); err != nil {
		return 0, err
	}
	return f.inner.Size()
}

func (f *faultFile) Truncate(sizeBytes int64) error {
	if err := f.inj.Before(OpTruncate, f.inner.Name()); err != nil {
		return err
	}
	if err := f.inner.Truncate(sizeBytes); err != nil {
		return err
	}
	observe(f.inj, func(o fsObserver) { o.afterTruncate(f.inner.Name(), sizeBytes) })
	return nil
}

func (f *faultFile) Sync() error {
	if err := f.inj.Before(OpSync, f.inner.Name()); err != nil {
		return err
	}
	return f.inner.Sync()
}

func (f *faultFile) Close() error {
	if err := f.inj.Before(OpClose, f.inner.Name()); err != nil {
		return err
	}
	return f.inner.Close()
}

func (f *faultFile) Name() string { return f.inner.Name() }
