package sweep

import (
	"context"
	"fmt"
	"slices"
)

// Steering: a steered sweep draws each seed's plan with one of the
// steering arms (`felixsim run --steer ARM`, Options.SteerArms), and
// weights the arms by the projected model states (tla/README.md, "Model
// coverage") their earlier seeds found that no earlier seed had. The
// seeds run in rounds of SteerRoundSeeds, in the shard's schedule order:
// round k's arms are drawn from weights computed from rounds before k
// once round k-1 has finished, its seeds credited in seed order. So the
// arm of every seed depends on the seeds alone, not on --jobs or on which
// worker finished first, and each seed's reproduce line names its arm.
// A shard steers from its own seeds only.

// SteerRoundSeeds is how many seeds one steering round holds: the arms of
// a round are drawn before any of its seeds has run, so a smaller round
// reacts sooner and a larger one keeps more workers busy at its end.
const SteerRoundSeeds = 16

// SteerWeightFloor and SteerWeightPerState shape an arm's weight: the
// floor keeps every arm drawn now and then (an arm that found nothing yet
// may find something later); each new state per seed the arm ran adds
// SteerWeightPerState.
const (
	SteerWeightFloor    = 10
	SteerWeightPerState = 100
)

// SteerArmsMax bounds how many arms a sweep steers among.
const SteerArmsMax = 64

// ArmStats is one arm's record in a steered sweep.
type ArmStats struct {
	Arm string `json:"arm"`
	// Seeds counts the seeds that ran with the arm and reported model
	// states; NewStates the states they found first, in seed order within
	// their round.
	Seeds     uint64 `json:"seeds"`
	NewStates uint64 `json:"new_states"`
}

// steering is a steered sweep's state: the states found so far and each
// arm's record.
type steering struct {
	arms  []ArmStats
	union map[uint64]bool
}

func newSteering(arms []string) *steering {
	s := &steering{union: map[uint64]bool{}}
	for _, a := range arms {
		s.arms = append(s.arms, ArmStats{Arm: a})
	}
	return s
}

// weights are the arms' draw weights now.
func (s *steering) weights() []uint64 {
	w := make([]uint64, len(s.arms))
	for i, a := range s.arms {
		w[i] = SteerWeightFloor + SteerWeightPerState*a.NewStates/(a.Seeds+1)
	}
	return w
}

// pick draws seed's arm from weights: a hash of the seed, so the draw
// depends on nothing but the seed and the weights.
func pick(seed uint64, weights []uint64) int {
	var total uint64
	for _, w := range weights {
		total += w
	}
	if total == 0 {
		panic(fmt.Sprintf("sweep: steering weights %v sum to zero", weights))
	}
	x := splitmix(seed^0x5f3759df_a5a5a5a5) % total
	for i, w := range weights {
		if x < w {
			return i
		}
		x -= w
	}
	panic("sweep: pick ran past the weights")
}

// splitmix is SplitMix64's finaliser: a well-mixed hash of x.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// roundResult is one seed of a finished round: its arm and the states it
// visited (nil when it reported none).
type roundResult struct {
	seed   uint64
	arm    int
	states []uint64
}

// credit adds a finished round's seeds, in seed order: each arm is
// credited with the states its seeds found first.
func (s *steering) credit(round []roundResult) {
	slices.SortFunc(round, func(a, b roundResult) int {
		switch {
		case a.seed < b.seed:
			return -1
		case a.seed > b.seed:
			return 1
		}
		return 0
	})
	for _, r := range round {
		if r.states == nil {
			continue
		}
		a := &s.arms[r.arm]
		a.Seeds++
		for _, st := range r.states {
			if !s.union[st] {
				s.union[st] = true
				a.NewStates++
			}
		}
	}
}

// steerRounds follows a steered sweep's rounds from the results' side:
// which seeds the current round holds (the schedule's next
// SteerRoundSeeds), which of them have finished, and, once all have, the
// next round's weights for the dispatcher.
type steerRounds struct {
	s       *steering
	sched   Schedule
	next    uint64 // the schedule's first seed past the current round
	more    bool   // whether the schedule has a seed past the current round
	pending map[uint64]bool
	done    []roundResult
	// weightsCh carries round k's weights to dispatchSteered once round
	// k-1 has finished. Cap: one, as the dispatcher waits for each round's
	// weights before it sends the round.
	weightsCh chan []uint64
}

func newSteerRounds(sched Schedule, arms []string) *steerRounds {
	r := &steerRounds{s: newSteering(arms), sched: sched, weightsCh: make(chan []uint64, 1)}
	r.next, r.more = sched.First()
	r.openRound()
	return r
}

// openRound makes the schedule's next SteerRoundSeeds seeds the current
// round.
func (r *steerRounds) openRound() {
	r.pending, r.done = map[uint64]bool{}, nil
	for len(r.pending) < SteerRoundSeeds && r.more {
		r.pending[r.next] = true
		r.next, r.more = r.sched.Next(r.next)
	}
}

// add notes a finished seed; the round's last credits the round and hands
// the next round's weights to the dispatcher.
func (r *steerRounds) add(res seedResult) {
	if !r.pending[res.seed] {
		panic(fmt.Sprintf("sweep: seed %d finished outside its steering round", res.seed))
	}
	delete(r.pending, res.seed)
	r.done = append(r.done, roundResult{seed: res.seed, arm: res.arm, states: res.states})
	if len(r.pending) > 0 {
		return
	}
	r.s.credit(r.done)
	r.openRound()
	if len(r.pending) > 0 {
		r.weightsCh <- r.s.weights()
	}
}

// dispatchSteered sends the schedule's seeds round by round, each with
// the arm drawn from the round's weights (the first round's are the
// floor for every arm), until the schedule ends, the time is up or the
// sweep is cancelled; then closes seeds.
func (o *Options) dispatchSteered(ctx context.Context, sched Schedule, seeds chan<- job, weightsCh <-chan []uint64) {
	defer close(seeds)
	deadline, stop := o.deadline()
	defer stop()
	weights := newSteering(o.SteerArms).weights()
	s, ok := sched.First()
	for ok {
		for n := 0; n < SteerRoundSeeds && ok; n++ {
			select {
			case seeds <- job{seed: s, arm: pick(s, weights)}:
			case <-deadline:
				return
			case <-ctx.Done():
				return
			}
			s, ok = sched.Next(s)
		}
		if !ok {
			return
		}
		select {
		case weights = <-weightsCh:
		case <-deadline:
			return
		case <-ctx.Done():
			return
		}
	}
}
