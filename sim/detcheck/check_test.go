package detcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// planted is a source file with one violation of every rule, each on a line
// ending in a "want:<rule>" comment, next to code that must pass.
const planted = `package planted

import (
	crand "crypto/rand" // want:import
	"hash/maphash" // want:import
	"math/rand"
	"os" // want:import
	"sort"
	"time"
)

type store struct{ byKey map[string]int }

type named map[int]bool

func bad(s *store, n named, ch chan int) { // want:chan
	_ = time.Now() // want:time
	time.Sleep(1) // want:time
	_ = time.Since(time.Time{}) // want:time
	_ = rand.Intn(3) // want:rand
	go bad(s, n, nil) // want:go
	select {} // want:select
	ch <- 1 // want:chan
	<-ch // want:chan
	for k := range s.byKey { // want:maprange
		println(k)
	}
	for k := range n { // want:maprange
		println(k)
	}
	local := map[int]int{}
	for k, v := range local { // want:maprange
		println(k, v)
	}
	var keys []string
	for k := range s.byKey { // want:maprange
		keys = append(keys, k)
	}
	_, _, _ = crand.Reader, maphash.Hash{}, os.Args
	//det:ok
	_ = time.Now() // want:det:ok
	best, bestV := "", 0
	for k, v := range s.byKey { // want:maprange
		if v > bestV {
			best = k
		}
	}
	_ = best
	counter := map[string]int{}
	i := 0
	for k := range s.byKey { // want:maprange
		counter[k] = i
		i++
	}
}

func good(s *store, xs []int) {
	r := rand.New(rand.NewSource(1))
	_ = r.Intn(3)
	var keys []string
	for k := range s.byKey {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for k := range s.byKey {
		delete(s.byKey, k)
	}
	for _, x := range xs {
		println(x)
	}
	_ = time.Duration(5) * time.Millisecond
	low := 0
	for _, v := range s.byKey {
		if v < low {
			low = v
		}
	}
	seen := map[string]bool{}
	for k, v := range s.byKey {
		seen[k] = true
		if v > 0 {
			keys = append(keys, k)
		}
	}
	//det:ok the order is folded by a commutative sum
	for k := range s.byKey {
		println(k)
	}
}
`

func TestCatchesPlantedViolations(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "planted.go"), []byte(planted), 0o644); err != nil {
		t.Fatal(err)
	}
	// Test files are not checked.
	if err := os.WriteFile(filepath.Join(dir, "planted_test.go"), []byte("package planted\nimport \"time\"\nvar _ = time.Now()\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	findings, err := CheckDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]string{}
	for i, line := range strings.Split(planted, "\n") {
		if _, rule, ok := strings.Cut(line, "// want:"); ok {
			want[i+1] = rule
		}
	}
	if len(want) < 19 || len(findings) < 19 {
		t.Fatalf("planted %d violations, found %d: the fixture or the checker lost its teeth", len(want), len(findings))
	}
	got := map[int]string{}
	for _, f := range findings {
		if prev, dup := got[f.Pos.Line]; dup && prev != f.Rule {
			t.Errorf("line %d flagged twice: %s and %s", f.Pos.Line, prev, f.Rule)
		}
		got[f.Pos.Line] = f.Rule
		if want[f.Pos.Line] != f.Rule {
			t.Errorf("unexpected finding %s", f)
		}
	}
	for line, rule := range want {
		if got[line] != rule {
			t.Errorf("line %d: missed the planted %s violation", line, rule)
		}
	}
}

func TestParseErrorIsReported(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "broken.go"), []byte("package x\nfunc {"), 0o644)
	if _, err := CheckDir(dir); err == nil || !strings.Contains(err.Error(), "detcheck: parse") {
		t.Fatalf("broken source: %v", err)
	}
}
