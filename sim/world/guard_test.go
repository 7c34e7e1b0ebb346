package world_test

import (
	cryptorand "crypto/rand"
	"math/big"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/sim/world/worldtest"
	"github.com/pingcap/failpoint"
)

func draw(t *testing.T) int64 {
	v, err := cryptorand.Int(cryptorand.Reader, big.NewInt(1<<40))
	if err != nil {
		t.Fatal(err)
	}
	return v.Int64()
}

func TestCryptoReaderSeededAndRestored(t *testing.T) {
	saved := cryptorand.Reader
	values := map[uint64]int64{}
	for _, seed := range []uint64{1, 1, 2} {
		w, _ := worldtest.ProbeWorld(t, seed, 1, worldtest.FixedLink, nil)
		if cryptorand.Reader == saved {
			t.Fatal("crypto/rand.Reader not replaced during the run")
		}
		v := draw(t)
		if old, ok := values[seed]; ok && old != v {
			t.Fatalf("seed %d: crypto/rand draws %d then %d", seed, old, v)
		}
		values[seed] = v
		w.Close()
		if cryptorand.Reader != saved {
			t.Fatal("crypto/rand.Reader not restored at Close")
		}
	}
	if values[1] == values[2] {
		t.Fatal("seeds 1 and 2 gave the same crypto/rand draw")
	}
}

func TestSecondConcurrentWorldPanics(t *testing.T) {
	w, _ := worldtest.ProbeWorld(t, 1, 1, worldtest.FixedLink, nil)
	defer func() {
		r := recover()
		if r == nil || !strings.Contains(r.(string), "second World") {
			t.Fatalf("opening a second world did not panic loudly: %v", r)
		}
		w.Close()
		w2, _ := worldtest.ProbeWorld(t, 2, 1, worldtest.FixedLink, nil) // after Close the process is free again
		w2.Close()
	}()
	worldtest.ProbeWorld(t, 2, 1, worldtest.FixedLink, nil)
}

func TestFailpointsDisarmedAtClose(t *testing.T) {
	const name = "github.com/felixsim/felixsim/sim/testFailpoint"
	w, _ := worldtest.ProbeWorld(t, 1, 1, worldtest.FixedLink, nil)
	if err := w.ArmFailpoint(name, "50%return(true)"); err == nil || !strings.Contains(err.Error(), "not deterministic") {
		t.Fatalf("a probability term was accepted: %v", err)
	}
	if err := w.ArmFailpoint(name, "return(true)"); err != nil {
		t.Fatal(err)
	}
	if v, err := failpoint.Eval(name); err != nil || v != true {
		t.Fatalf("armed failpoint evaluates to %v, %v", v, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := failpoint.Eval(name); err == nil {
		t.Fatal("failpoint still armed after Close")
	}
}
