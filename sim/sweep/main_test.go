package sweep

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// felixsim is the felixsim binary TestMain builds once for the tests that
// sweep real seeds.
var felixsim string

// TestMain builds ./cmd/felixsim into a temporary directory, runs the
// tests, and removes it.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sweep-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	felixsim = filepath.Join(dir, "felixsim")
	build := exec.Command("go", "build", "-o", felixsim, "github.com/felixsim/felixsim/cmd/felixsim")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build felixsim: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}
