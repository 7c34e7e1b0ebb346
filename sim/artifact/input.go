package artifact

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// Byte caps of the files felixsim reads: a reader refuses a larger file,
// naming its cap, before it holds more than the cap in memory.
const (
	// PlanBytesMax caps a plan file (a 60 s run's is a few KB; a plan of
	// sim.PlanLinesMax short lines fits).
	PlanBytesMax = 64 << 20
	// HistoryBytesMax caps a history file (a 60 s run's is a few MB).
	HistoryBytesMax = 1 << 30
	// EventsBytesMax caps an event trace file: TraceEventsMax lines of a
	// hundred-odd bytes.
	EventsBytesMax = TraceEventsMax * 160
)

// ErrTooLarge marks a refusal of an input over its byte cap.
var ErrTooLarge = errors.New("larger than its cap")

// OpenInput opens the file at path for reading, refusing anything but a
// regular file (a device such as /dev/urandom or /dev/zero, a FIFO, a
// directory) and a file over maxBytes; what names the file's kind in the
// errors ("plan", "history"). The reader it returns refuses, with
// ErrTooLarge, to read past maxBytes, so a file that grows while it is
// read is refused too.
func OpenInput(path, what string, maxBytes int64) (io.ReadCloser, error) {
	// Stat before opening: opening a named pipe would wait for a writer.
	if err := checkInput(os.Stat(path)); err != nil {
		return nil, inputError(path, what, maxBytes, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s %w", what, err)
	}
	if err := checkInput(f.Stat()); err != nil { // it may have changed between
		f.Close()
		return nil, inputError(path, what, maxBytes, err)
	}
	fi, _ := f.Stat()
	if fi.Size() > maxBytes {
		f.Close()
		return nil, fmt.Errorf("%s %s refused: %d bytes, %w of %d bytes", what, path, fi.Size(), ErrTooLarge, maxBytes)
	}
	return &cappedFile{f: f, path: path, what: what, left: maxBytes, max: maxBytes}, nil
}

// errNotRegular carries a non-regular file's kind.
type errNotRegular struct{ kind string }

func (e errNotRegular) Error() string { return "not a regular file (" + e.kind + ")" }

// checkInput refuses a stat result that is an error or not a regular file.
func checkInput(fi os.FileInfo, err error) error {
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return errNotRegular{fileKind(fi.Mode())}
	}
	return nil
}

// inputError names the input and why it was refused.
func inputError(path, what string, maxBytes int64, err error) error {
	var nr errNotRegular
	if errors.As(err, &nr) {
		return fmt.Errorf("%s %s refused: %v", what, path, nr)
	}
	return fmt.Errorf("%s %w", what, err)
}

// ReadInput reads the file at path whole, as OpenInput allows it.
func ReadInput(path, what string, maxBytes int64) ([]byte, error) {
	r, err := OpenInput(path, what, maxBytes)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(r)
	return b, errors.Join(err, r.Close())
}

// cappedFile is an input file that refuses to yield more than max bytes.
type cappedFile struct {
	f          *os.File
	path, what string
	left, max  int64
}

func (c *cappedFile) Read(p []byte) (int, error) {
	if c.left <= 0 {
		var one [1]byte
		if n, _ := c.f.Read(one[:]); n > 0 {
			return 0, fmt.Errorf("%s %s refused: it grew past %w of %d bytes while read", c.what, c.path, ErrTooLarge, c.max)
		}
		return 0, io.EOF
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.f.Read(p)
	c.left -= int64(n)
	return n, err
}

func (c *cappedFile) Close() error { return c.f.Close() }

// fileKind names a non-regular file's kind for a refusal.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a device"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	}
	return "mode " + m.String()
}
