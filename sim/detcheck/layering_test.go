package detcheck

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// fixtureModule is a small module laid out like felixsim, checked against
// the real layers table. Each planted violation is on a line ending in a
// "want:<rule>" comment; everything else must pass.
var fixtureModule = map[string]string{
	"go.mod": "module example.com/fx\n\ngo 1.26\n",
	"statemachine/shard.go": `package statemachine

import (
	"os" // want:import
	"reflect" // want:import
	"sort"
	"time" // want:import
	"example.com/fx/wire" // want:layer
	"go.etcd.io/raft/v3" // want:layer
)

var _, _, _, _, _ = os.Args, reflect.TypeOf, sort.Ints, wire.X, raft.X

func Dur() time.Duration { return 0 }
`,
	"felix/record.go": `package felix

import (
	"errors"
	"time" // want:import
	"example.com/fx/statemachine" // want:layer
)

var _, _, _ = errors.New, time.Duration(0), statemachine.X
`,
	"wire/codec.go": `package wire

import (
	"sync" // want:import
	"unsafe" //det:ok wire may read bytes in place; unsafe is only banned for statemachine
	"example.com/fx/felix"
	"example.com/fx/statemachine" // want:layer
)

var X, _ = felix.X, statemachine.X

func each(m map[string]int) {
	for k := range m { // want:maprange
		println(k)
	}
	select {} // want:select
}

var _, _ = sync.Mutex{}, unsafe.Sizeof(0)
`,
	"client/client.go": `package client

import (
	"math/rand" // want:import
	//det:ok the marker silences a forbidden standard import
	"time"
	"example.com/fx/sim/simapi" // want:layer
	"example.com/fx/node" // want:layer
	//det:ok a marker cannot move a layer
	"example.com/fx/logstore" // want:layer
)

func call(done func()) {
	go done() // want:go
	_ = time.Now() // want:time
	_ = rand.Intn(2) // want:rand
}

var _, _, _ = simapi.X, node.X, logstore.X
`,
	"client/client_test.go": `package client

import (
	"example.com/fx/sim"
	"time"
)

func helper() { go sim.Run(); _ = time.Now() }
`,
	"node/node.go": `package node

import (
	"example.com/fx/logstore"
	"example.com/fx/moment"
	"example.com/fx/sim" // want:layer
	"example.com/fx/sim/simapi" // want:layer
	"example.com/fx/sim/prng" // want:layer
	"go.etcd.io/raft/v3/raftpb"
	"github.com/pingcap/failpoint" // want:layer
	"time"
)

var _, _, _, _, _, _, _ = logstore.X, moment.X, sim.X, simapi.X, prng.X, raftpb.X, failpoint.X

func wait(ch chan int) { // want:chan
	time.Sleep(1) // want:time
}
`,
	"logstore/store.go": `package logstore

import (
	"example.com/fx/felix"
	"example.com/fx/cmd/felixsim" // want:layer
	"example.com/fx/properties" // want:layer
	"github.com/pingcap/failpoint"
)

var _, _, _, _ = felix.X, felixsim.X, properties.X, failpoint.X
`,
	"properties/check.go": `package properties

import (
	"sort"
	"example.com/fx/sim/runner" // want:layer
)

var _, _ = sort.Ints, runner.X
`,
	"tla/explore.go": `package tla

import (
	"example.com/fx/properties"
	"example.com/fx/statemachine" // want:layer
	"unsafe"
	//det:ok
	"sync" // want:det:ok
)

var _, _, _, _ = properties.X, statemachine.X, unsafe.Sizeof(0), sync.Mutex{}
`,
	"sim/world/world.go": `package world

import (
	cryptorand "crypto/rand" //det:ok the seeded swap of crypto/rand.Reader
	"example.com/fx/node" // want:layer
	"example.com/fx/sim/faultplan" // want:layer
	"example.com/fx/sim/prng"
)

var _, _, _, _ = cryptorand.Reader, node.X, faultplan.X, prng.X
`,
	"sim/faultplan/plan.go": `package faultplan

import (
	"example.com/fx/sim/world"
	"example.com/fx/sim/cluster" // want:layer
)

var _, _ = world.X, cluster.X
`,
	"sim/simapi/simapi.go": `package simapi

import "example.com/fx/moment"

var _ = moment.X
`,
	"sim/prng/prng.go": `package prng

import "math/rand" // want:import

var _ = rand.New
`,
	"vfs/os.go": `package vfs

import (
	"os"
	"path/filepath"
	"time"
)

var _, _ = os.Open, filepath.Join

func now() time.Time { return time.Now() }
`,
	"cmd/felixsim/main.go": `package main

import (
	"os"
	"time"
	"example.com/fx/sim/runner"
	"example.com/fx/tla"
)

func main() { start := time.Now(); runner.Run(); tla.Explore(); _ = time.Since(start); os.Exit(0) }
`,
	"extra/extra.go": `package extra // want:layer

import "example.com/fx/statemachine"

var _ = statemachine.X
`,
	"extra/testdata/skipped.go": "package skipped\n\nimport \"example.com/fx/cmd/felixsim\"\n",
	".hidden/skipped.go":        "package hidden\n\nfunc f() { go f() }\n",
}

func writeFixture(t *testing.T, files map[string]string) string {
	root := t.TempDir()
	for rel, src := range files {
		path := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// TestModuleCatchesPlantedViolations: every planted layering, forbidden
// import and determinism violation is reported at its file:line with its
// rule, and nothing else is.
func TestModuleCatchesPlantedViolations(t *testing.T) {
	root := writeFixture(t, fixtureModule)
	findings, err := CheckModule(root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{}
	for rel, src := range fixtureModule {
		for i, line := range strings.Split(src, "\n") {
			if _, rule, ok := strings.Cut(line, "// want:"); ok {
				want[fmt.Sprintf("%s:%d", rel, i+1)] = rule
			}
		}
	}
	got := map[string]string{}
	for _, f := range findings {
		rel, err := filepath.Rel(root, f.Pos.Filename)
		if err != nil {
			t.Fatal(err)
		}
		at := fmt.Sprintf("%s:%d", filepath.ToSlash(rel), f.Pos.Line)
		if prev, dup := got[at]; dup {
			t.Errorf("%s flagged twice: %s and %s", at, prev, f)
		}
		got[at] = f.Rule
		if want[at] != f.Rule {
			t.Errorf("unexpected finding %s", f)
		}
	}
	var missed []string
	for at, rule := range want {
		if got[at] != rule {
			missed = append(missed, at+" "+rule)
		}
	}
	sort.Strings(missed)
	for _, m := range missed {
		t.Errorf("missed the planted violation at %s", m)
	}
	if len(want) < 25 {
		t.Fatalf("only %d planted violations: the fixture lost its teeth", len(want))
	}
}

// TestLayerFindingNamesTheRule: a finding says which package may not import
// what, and what it may import instead.
func TestLayerFindingNamesTheRule(t *testing.T) {
	root := writeFixture(t, map[string]string{
		"go.mod":       "module example.com/fx\n",
		"node/node.go": "package node\n\nimport \"example.com/fx/sim\"\n\nvar _ = sim.X\n",
	})
	findings, err := CheckModule(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(findings) != 1 {
		t.Fatalf("want one finding, got %v", findings)
	}
	s := findings[0].String()
	for _, want := range []string{"node/node.go:3:8: layer:", "node must not import sim", "it may import only felix, logstore"} {
		if !strings.Contains(s, want) {
			t.Errorf("finding %q does not say %q", s, want)
		}
	}
}

func TestModuleNeedsGoMod(t *testing.T) {
	root := writeFixture(t, map[string]string{"statemachine/x.go": "package statemachine\n"})
	if _, err := CheckModule(root); err == nil || !strings.Contains(err.Error(), "go.mod") {
		t.Fatalf("a tree without go.mod: %v", err)
	}
	root = writeFixture(t, map[string]string{"go.mod": "go 1.26\n"})
	if _, err := CheckModule(root); err == nil || !strings.Contains(err.Error(), "no module line") {
		t.Fatalf("a go.mod without a module line: %v", err)
	}
}

func TestModuleReportsParseErrors(t *testing.T) {
	root := writeFixture(t, map[string]string{"go.mod": "module example.com/fx\n", "wire/bad.go": "package wire\nfunc {"})
	if _, err := CheckModule(root); err == nil || !strings.Contains(err.Error(), "detcheck: parse") {
		t.Fatalf("broken source: %v", err)
	}
}
