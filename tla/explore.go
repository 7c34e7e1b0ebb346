package tla

import (
	"fmt"
	"strconv"

	"github.com/felixsim/felixsim/properties"
)

// StatesMax caps how many distinct states one exploration may visit
// (it keeps about 30 bytes per state, plus two levels in full); past it
// Explore stops and returns an error rather than exhaust memory.
const StatesMax = 5_000_000

// Result is what an exploration found. Counts follow TLC: Generated counts
// every successor computed (duplicates included) plus the initial states;
// Depth is the number of breadth-first levels, the initial state's being 1.
type Result struct {
	Config    Config
	Distinct  int
	Generated int
	Depth     int
	// Violation is nil when every invariant held on every state (or none
	// was checked).
	Violation *Violation
}

// Violation is the first invariant violation found and the shortest
// behaviour reaching it.
type Violation struct {
	Invariant properties.InvariantName
	Message   string
	// Trace starts at Init; its length is the counterexample's depth.
	Trace []Step
}

// explorer is the breadth-first search's storage: the fingerprint set,
// each distinct state's parent and the action that reached it (so a trace
// can be replayed from the initial state), and the states of the level
// being expanded and of the next one. Only those two levels are kept in
// full, so memory grows by a few bytes per distinct state.
type explorer struct {
	m      model
	chk    *checker
	parent []int32
	via    []action
	seen   map[uint64]struct{}
	// exact, if not nil, replaces fingerprints by whole states (tests use
	// it to show the fingerprints collide nowhere in a config).
	exact map[State]struct{}
	// visit, if not nil, is called with every distinct state (the
	// model-state coverage projects them).
	visit   func(*State)
	next    []State
	nextIdx []int32
	res     Result
	stopped bool
}

// Explore runs a breadth-first search of cfg's state space, checking the
// invariants on every distinct state if cfg.Invariants, and stops at the
// first violation.
func Explore(cfg Config) (*Result, error) {
	return explore(cfg, StatesMax)
}

// explore is Explore with a state cap (tests use a small one).
func explore(cfg Config, statesMax int) (*Result, error) {
	return exploreWith(&explorer{m: model{cfg: cfg}}, statesMax)
}

// exploreWith runs the search on a prepared explorer.
func exploreWith(e *explorer, statesMax int) (*Result, error) {
	cfg := e.m.cfg
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	e.chk = newChecker(cfg)
	e.seen = make(map[uint64]struct{}, 1<<16)
	e.res.Config = cfg
	init := e.m.initState()
	e.res.Generated++
	e.add(&init, -1, mkAction(actInit, 0))
	var cur []State
	var curIdx []int32
	for len(e.next) > 0 && !e.stopped {
		e.res.Depth++
		if len(e.parent) > statesMax {
			return nil, fmt.Errorf("exploration of %s refused to go on: more than %d distinct states (StatesMax); the result is unknown, not a pass", cfg.Name, statesMax)
		}
		cur, e.next = e.next, cur[:0]
		curIdx, e.nextIdx = e.nextIdx, curIdx[:0]
		for i := range cur {
			if e.stopped {
				break
			}
			from := curIdx[i]
			e.m.successors(&cur[i], func(a action, t *State) {
				if e.stopped {
					return
				}
				e.res.Generated++
				e.add(t, from, a)
			})
		}
	}
	e.res.Distinct = len(e.parent)
	return &e.res, nil
}

// add records t if it is new and checks the invariants on it.
func (e *explorer) add(t *State, parent int32, a action) {
	c := canonical(t, e.m.cfg.Brokers-e.m.cfg.Spares)
	if e.exact != nil {
		if _, ok := e.exact[c]; ok {
			return
		}
		e.exact[c] = struct{}{}
	} else {
		fp := c.fingerprint()
		if _, ok := e.seen[fp]; ok {
			return
		}
		e.seen[fp] = struct{}{}
	}
	e.m.assertWellFormed(t)
	if e.visit != nil {
		e.visit(t)
	}
	idx := int32(len(e.parent))
	e.parent = append(e.parent, parent)
	e.via = append(e.via, a)
	e.next = append(e.next, *t)
	e.nextIdx = append(e.nextIdx, idx)
	if !e.m.cfg.Invariants {
		return
	}
	if name, err := e.chk.check(t); err != nil {
		e.stopped = true
		trace := e.trace(idx, t)
		e.res.Depth = len(trace)
		e.res.Violation = &Violation{Invariant: name, Message: err.Error(), Trace: trace}
	}
}

// trace replays the actions from the initial state to state idx, which
// must end in last, and renders each step's changes.
func (e *explorer) trace(idx int32, last *State) []Step {
	var acts []action
	for i := idx; i > 0; i = e.parent[i] {
		acts = append(acts, e.via[i])
	}
	cur := e.m.initState()
	steps := []Step{{Action: mkAction(actInit, 0).String(), Changes: e.m.diff(nil, &cur)}}
	for k := len(acts) - 1; k >= 0; k-- {
		next, ok := e.m.step(&cur, acts[k])
		if !ok {
			panic("tla: trace replay: action " + acts[k].String() + " not enabled at step " + strconv.Itoa(len(steps)))
		}
		steps = append(steps, Step{Action: acts[k].String(), Changes: e.m.diff(&cur, &next)})
		cur = next
	}
	if cur != *last {
		panic("tla: trace replay of " + strconv.Itoa(len(acts)) + " actions did not reach the violating state")
	}
	return steps
}
