package tla

import (
	"fmt"
	"strconv"
)

// StatesMax caps how many distinct states one exploration may store
// (about 250 bytes each); past it Explore stops and returns an error
// rather than exhaust memory.
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
	Invariant string
	Message   string
	// Trace starts at Init; its length is the counterexample's depth.
	Trace []Step
}

// explorer is the breadth-first search's storage: every distinct state in
// discovery order (which is also the queue), its parent and the action
// that reached it, and the fingerprint set.
type explorer struct {
	m       model
	chk     *checker
	states  []State
	parent  []int32
	via     []action
	level   []uint8
	seen    map[uint64]int32
	res     Result
	stopped bool
}

// Explore runs a breadth-first search of cfg's state space, checking the
// invariants on every distinct state if cfg.Invariants, and stops at the
// first violation.
func Explore(cfg Config) (*Result, error) {
	return explore(cfg, defectNone, StatesMax)
}

// explore is Explore with a planted defect and a state cap (tests only).
func explore(cfg Config, defect uint8, statesMax int) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	e := &explorer{m: model{cfg: cfg, defect: defect}, chk: newChecker(cfg), seen: make(map[uint64]int32, 1<<16)}
	e.res.Config = cfg
	init := e.m.initState()
	e.res.Generated++
	e.add(&init, -1, mkAction(actInit, 0), 1)
	for i := 0; i < len(e.states) && !e.stopped; i++ {
		if len(e.states) > statesMax {
			return nil, fmt.Errorf("exploration of %s refused to go on: more than %d distinct states (StatesMax); the result is unknown, not a pass", cfg.Name, statesMax)
		}
		s := e.states[i]
		lvl := e.level[i] + 1
		e.m.successors(&s, func(a action, t *State) {
			if e.stopped {
				return
			}
			e.res.Generated++
			e.add(t, int32(i), a, lvl)
		})
	}
	e.res.Distinct = len(e.states)
	return &e.res, nil
}

// add records t if it is new and checks the invariants on it.
func (e *explorer) add(t *State, parent int32, a action, lvl uint8) {
	fp := t.fingerprint()
	if _, ok := e.seen[fp]; ok {
		return
	}
	idx := int32(len(e.states))
	e.seen[fp] = idx
	e.states = append(e.states, *t)
	e.parent = append(e.parent, parent)
	e.via = append(e.via, a)
	e.level = append(e.level, lvl)
	if lvl == 255 {
		panic("tla: breadth-first level 255 reached: depth overflows uint8 (parent " + strconv.Itoa(int(parent)) + ")")
	}
	if int(lvl) > e.res.Depth {
		e.res.Depth = int(lvl)
	}
	if !e.m.cfg.Invariants {
		return
	}
	if name, err := e.chk.check(t); err != nil {
		e.stopped = true
		trace := e.trace(idx)
		e.res.Depth = len(trace)
		e.res.Violation = &Violation{Invariant: name, Message: err.Error(), Trace: trace}
	}
}

// trace rebuilds the path from the initial state to state idx.
func (e *explorer) trace(idx int32) []Step {
	var path []int32
	for i := idx; i >= 0; i = e.parent[i] {
		path = append(path, i)
	}
	steps := make([]Step, 0, len(path))
	var prev *State
	for k := len(path) - 1; k >= 0; k-- {
		cur := &e.states[path[k]]
		steps = append(steps, Step{Action: e.via[path[k]].String(), Changes: e.m.diff(prev, cur)})
		prev = cur
	}
	return steps
}
