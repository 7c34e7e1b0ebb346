package runner

import (
	"github.com/felixsim/felixsim/sim/cluster"
)

// LeaderSpan is one broker leading one raft group in one term, over
// [FromNs, ToNs) of simulated time.
type LeaderSpan struct {
	Group  uint64 `json:"group"`
	Broker uint64 `json:"broker"` // raft id
	Term   uint64 `json:"term"`
	FromNs int64  `json:"from_ns"`
	ToNs   int64  `json:"to_ns"`
}

// LeaderSpansMax caps the recorded leadership spans. Overflow policy: stop
// recording and mark Result.LeadershipTruncated (the run goes on).
const LeaderSpansMax = 1 << 16

// observer watches the cluster between events, reading only: leadership
// changes become LeaderSpans, and the --until instant's state is captured.
// It schedules nothing and draws no randomness, so the trace hash is the
// same with or without it (TestObserverKeepsHash).
type observer struct {
	r *run
	// open[b][g-1] is the index in spans of broker b's open span for group
	// g, or -1. Invariant: an open span has ToNs == 0.
	open  [][]int
	spans []LeaderSpan
	// truncated is set when spans reached LeaderSpansMax.
	truncated bool
	lead      bool // record leadership
	untilNs   int64
	captured  bool
	// progressNextNs is when Options.Progress is next called (0: never);
	// faultsDone counts the plan's faults at or before the last call.
	progressNextNs int64
	faultsDone     int
}

// observe installs the observer when the options ask for one.
func (r *run) observe() {
	if !r.opts.Observe && r.opts.UntilNs <= 0 && r.opts.Progress == nil {
		return
	}
	o := &observer{r: r, lead: r.opts.Observe, untilNs: r.opts.UntilNs}
	if r.opts.Progress != nil {
		o.progressNextNs = ProgressReportEveryNs
	}
	o.open = make([][]int, r.c.Brokers())
	for b := range o.open {
		o.open[b] = make([]int, r.c.Groups())
		for g := range o.open[b] {
			o.open[b][g] = -1
		}
	}
	r.obs = o
	r.c.World.SetObserver(o.after)
}

// after is the world's observer: it runs after each event.
func (o *observer) after(atNs int64, node int32) {
	if o.lead {
		brokers := int32(o.r.c.Brokers())
		switch {
		case node >= 0 && node < brokers:
			o.look(int(node), atNs)
		case node < 0: // a harness call or a fault: any broker may have changed
			for b := 0; b < int(brokers); b++ {
				o.look(b, atNs)
			}
		}
	}
	if o.progressNextNs > 0 && atNs >= o.progressNextNs {
		o.progress(atNs)
	}
	if o.untilNs > 0 && !o.captured && atNs <= o.untilNs {
		if next, ok := o.r.c.World.NextEventNs(); !ok || next > o.untilNs {
			o.capture(atNs)
		}
	}
}

// look compares broker b's leadership of every group with its open spans.
func (o *observer) look(b int, atNs int64) {
	n := o.r.c.Node(cluster.RaftID(b))
	for gi := range o.open[b] {
		var term uint64
		leads := false
		if n != nil {
			term, leads = n.LeaderTerm(uint64(gi + 1))
		}
		cur := o.open[b][gi]
		if cur >= 0 && (!leads || o.spans[cur].Term != term) {
			o.spans[cur].ToNs = atNs
			o.open[b][gi] = -1
			cur = -1
		}
		if leads && cur < 0 {
			if len(o.spans) >= LeaderSpansMax {
				o.truncated = true
				continue
			}
			o.open[b][gi] = len(o.spans)
			o.spans = append(o.spans, LeaderSpan{Group: uint64(gi + 1), Broker: n.ID(), Term: term, FromNs: atNs})
		}
	}
}

// capture renders the cluster's state for the --until instant.
func (o *observer) capture(atNs int64) {
	o.captured = true
	o.r.res.StateAt = renderState(o.r.c, atNs, o.r.opts.UntilNs, o.r.opts.UntilScope)
}

// ProgressReportEveryNs is how much simulated time passes between two
// calls of Options.Progress.
const ProgressReportEveryNs = 1_000_000_000

// RunProgress is how far a run has got, for a progress display.
type RunProgress struct {
	// SimNs is the simulated time now; DurationNs the fault phase's end
	// (heal, liveness, quiesce and the checks come after it).
	SimNs, DurationNs int64
	// Ops counts the workload's operations so far; Faults the plan's
	// faults whose time has come.
	Ops, Faults int
}

// progress reports the run's progress to Options.Progress; it reads only.
func (o *observer) progress(atNs int64) {
	for o.progressNextNs <= atNs {
		o.progressNextNs += ProgressReportEveryNs
	}
	faults := o.r.plan.Faults
	for o.faultsDone < len(faults) && faults[o.faultsDone].AtNs <= atNs {
		o.faultsDone++
	}
	o.r.opts.Progress(RunProgress{SimNs: atNs, DurationNs: o.r.opts.DurationNs, Ops: o.r.wl.OpsRecorded(), Faults: o.faultsDone})
}

// endObserving closes open spans at the run's end and removes the observer.
func (r *run) endObserving() {
	o := r.obs
	if o == nil {
		return
	}
	r.c.World.SetObserver(nil)
	end := r.c.World.NowNs()
	for b := range o.open {
		for _, i := range o.open[b] {
			if i >= 0 {
				o.spans[i].ToNs = end
			}
		}
	}
	if o.lead {
		r.res.Leadership, r.res.LeadershipTruncated = o.spans, o.truncated
	}
	if o.untilNs > 0 && !o.captured {
		o.captured = true
		r.res.StateAt = renderState(r.c, end, o.untilNs, r.opts.UntilScope)
	}
}
