package artifact

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestOpenInputRefusesNonRegularAndLarge: a device (the issue's --plan
// /dev/urandom and /dev/zero), a named pipe and a directory are refused
// as not regular files before a byte is read; a file over its cap is
// refused naming the cap; a file within it reads whole.
func TestOpenInputRefusesNonRegularAndLarge(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"/dev/urandom", "/dev/zero", fifo, dir} {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		_, err := ReadInput(p, "plan", PlanBytesMax)
		if err == nil || !strings.Contains(err.Error(), "not a regular file") || !strings.Contains(err.Error(), "plan "+p) {
			t.Errorf("%s: %v", p, err)
		}
	}
	big := filepath.Join(dir, "big")
	os.WriteFile(big, make([]byte, 101), 0o644)
	if _, err := ReadInput(big, "history", 100); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "100 bytes") {
		t.Errorf("a file over its cap: %v", err)
	}
	if b, err := ReadInput(big, "history", 101); err != nil || len(b) != 101 {
		t.Errorf("a file at its cap: %d bytes, %v", len(b), err)
	}
}

// TestCappedFileRefusesGrowth: a file that grows past its cap after it
// was opened is refused, not read on.
func TestCappedFileRefusesGrowth(t *testing.T) {
	p := filepath.Join(t.TempDir(), "grows")
	os.WriteFile(p, []byte("12345"), 0o644)
	r, err := OpenInput(p, "trace", 8)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	os.WriteFile(p, []byte("123456789012"), 0o644)
	var buf [64]byte
	total := 0
	for {
		n, err := r.Read(buf[:])
		total += n
		if err != nil {
			if !errors.Is(err, ErrTooLarge) || total > 8 {
				t.Fatalf("read %d bytes, then %v; want at most 8, then a refusal", total, err)
			}
			return
		}
	}
}
