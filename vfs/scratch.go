package vfs

import (
	"errors"
	"os"
)

// Scratch makes an empty scratch file in the real directory dir (""
// is the system's temporary directory) and unlinks it at once: it stays
// readable and writable through the handle, and nothing is left behind
// however the process ends. Where an open file cannot be unlinked, Close
// removes it. Name is the file's full path, for error messages.
func Scratch(dir, pattern string) (File, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return nil, err
	}
	s := &scratchFile{osFile: osFile{File: f, name: f.Name()}}
	s.removeAtClose = os.Remove(f.Name()) != nil
	return s, nil
}

// scratchFile is a Scratch file's handle.
type scratchFile struct {
	osFile
	removeAtClose bool
}

// Close implements File; it removes a file that could not be unlinked.
func (s *scratchFile) Close() error {
	err := s.osFile.Close()
	if s.removeAtClose {
		err = errors.Join(err, os.Remove(s.name))
	}
	return err
}
