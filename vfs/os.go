package vfs

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// OS is the real filesystem below a root directory. It is the one place in
// felixsim's store path that touches the operating system's files.
type OS struct {
	root string
}

// NewOS returns an FS rooted at dir, which must exist.
func NewOS(dir string) (*OS, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("vfs: root %s: %w", dir, err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("vfs: root %s is not a directory", dir)
	}
	return &OS{root: dir}, nil
}

func (o *OS) path(name string) (string, string, error) {
	c, err := Clean(name)
	if err != nil {
		return "", "", err
	}
	return c, filepath.Join(o.root, filepath.FromSlash(c)), nil
}

type osFile struct {
	*os.File
	name string
}

func (f osFile) Name() string { return f.name }

func (f osFile) Size() (int64, error) {
	st, err := f.File.Stat()
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// Create implements FS.
func (o *OS) Create(name string) (File, error) {
	c, p, err := o.path(name)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_TRUNC|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return osFile{File: f, name: c}, nil
}

// Open implements FS.
func (o *OS) Open(name string) (File, error) {
	c, p, err := o.path(name)
	if err != nil {
		return nil, err
	}
	f, err := os.OpenFile(p, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		return nil, err
	}
	return osFile{File: f, name: c}, nil
}

// Remove implements FS.
func (o *OS) Remove(name string) error {
	_, p, err := o.path(name)
	if err != nil {
		return err
	}
	return os.Remove(p)
}

// Rename implements FS.
func (o *OS) Rename(oldname, newname string) error {
	_, op, err := o.path(oldname)
	if err != nil {
		return err
	}
	_, np, err := o.path(newname)
	if err != nil {
		return err
	}
	return os.Rename(op, np)
}

// List implements FS.
func (o *OS) List(dir string) ([]string, error) {
	_, p, err := o.path(dir)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// MkdirAll implements FS.
func (o *OS) MkdirAll(dir string) error {
	_, p, err := o.path(dir)
	if err != nil {
		return err
	}
	return os.MkdirAll(p, 0o755)
}

// SyncDir implements FS: fsync on the directory itself.
func (o *OS) SyncDir(dir string) error {
	_, p, err := o.path(dir)
	if err != nil {
		return err
	}
	d, err := os.Open(p)
	if err != nil {
		return err
	}
	if err := d.Sync(); err != nil {
		d.Close()
		return fmt.Errorf("vfs: sync dir %s: %w", dir, err)
	}
	return d.Close()
}
