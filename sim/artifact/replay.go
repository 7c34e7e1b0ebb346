package artifact

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/felixsim/felixsim/sim/runner"
	"github.com/felixsim/felixsim/sim/verdict"
	"github.com/felixsim/felixsim/sim/world"
)

// ReplayOptions say what to replay and what to capture on the way.
type ReplayOptions struct {
	// Dir is an artifact directory; PlanPath a plan file (one of the two).
	Dir, PlanPath string
	// TracePath is a saved trace to name the first divergent event by;
	// for Dir it defaults to the directory's trace file.
	TracePath string
	// UntilNs and UntilScope capture the cluster's state at that simulated
	// time (see runner.Options).
	UntilNs    int64
	UntilScope string
}

// Replayed is a replay's outcome.
type Replayed struct {
	Result *runner.Result
	Meta   Meta
	// Reproduced is true when the plan carries an expected hash and the
	// run produced it.
	Reproduced bool
	// Divergence is the first event that differs from the saved trace,
	// when the hash differs and a trace was saved.
	Divergence *world.Divergence
	// Note explains what could not be compared, if anything.
	Note string
}

// Replay loads the plan (and the saved trace, if any), re-runs it with
// the saved topology and defects, and compares the trace hash with the
// expected one; when they differ it names the first diverging event. A
// plan or trace that cannot be read is an error, not a divergence.
func Replay(ro ReplayOptions) (*Replayed, error) {
	opts, meta, saved, err := load(ro)
	if err != nil {
		return nil, err
	}
	opts.RecordTrace = saved != nil
	opts.UntilNs, opts.UntilScope = ro.UntilNs, ro.UntilScope
	res, err := runner.Run(opts)
	if err != nil {
		return nil, err
	}
	out := &Replayed{Result: res, Meta: meta}
	switch {
	case !meta.HasTraceHash:
		out.Note = "the plan carries no expected trace hash (an older plan file): nothing to compare"
		return out, nil
	case res.TraceHash == meta.TraceHash:
		out.Reproduced = true
		return out, nil
	case saved == nil:
		out.Note = "no saved trace to name the first diverging event"
		return out, nil
	}
	d := world.FirstDivergence(saved.Events, res.Trace)
	out.Divergence = &d
	if d.IdenticalTrace {
		out.Note = fmt.Sprintf("the saved trace (hash %016x) matches this run event for event: the plan's expected hash %016x was altered", saved.Hash, meta.TraceHash)
	} else if saved.Truncated && d.MissingA {
		out.Note = "the saved trace was truncated at its cap; the runs agree as far as it goes"
	}
	return out, nil
}

// Verdict is the replay's verdict by the one rule: the run's, or
// Diverged when it did not reproduce the trace hash its plan records and
// violated nothing.
func (r *Replayed) Verdict() verdict.Verdict {
	v := r.Result.Verdict()
	if r.Divergence != nil || (r.Meta.HasTraceHash && !r.Reproduced) {
		v = verdict.Worst(v, verdict.Diverged)
	}
	return v
}

// load reads the plan and trace named by ro into run options.
func load(ro ReplayOptions) (runner.Options, Meta, *Trace, error) {
	planPath, tracePath := ro.PlanPath, ro.TracePath
	switch {
	case ro.Dir != "" && ro.PlanPath != "":
		return runner.Options{}, Meta{}, nil, fmt.Errorf("replay refused: give an artifact directory or a plan file, not both")
	case ro.Dir != "":
		planPath = filepath.Join(ro.Dir, PlanFile)
		if tracePath == "" {
			tracePath = savedEvents(ro.Dir)
		}
	case planPath == "":
		return runner.Options{}, Meta{}, nil, fmt.Errorf("replay refused: no artifact directory or plan file given")
	}
	opts, meta, err := LoadRun(planPath, CommandDefaults(), NoFlags)
	if err != nil {
		return runner.Options{}, Meta{}, nil, err
	}
	var saved *Trace
	if tracePath != "" {
		if saved, err = ReadTrace(tracePath); err != nil {
			return runner.Options{}, Meta{}, nil, err
		}
	}
	if ro.Dir != "" {
		opts.ArtifactDir = ro.Dir
	} else {
		opts.PlanPath = planPath
	}
	return opts, meta, saved, nil
}

// savedEvents is the artifact directory's event trace: EventsFile, else
// an older artifact's EventsFileV1; "" when it holds neither.
func savedEvents(dir string) string {
	for _, name := range []string{EventsFile, EventsFileV1} {
		p := filepath.Join(dir, name)
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			return p
		}
	}
	return ""
}

// String is the replay's report: hash reproduced, or where it diverged.
func (r *Replayed) String() string {
	var b strings.Builder
	res := r.Result
	switch {
	case r.Reproduced:
		fmt.Fprintf(&b, "replay reproduced trace hash %016x (%d events)\n", res.TraceHash, res.Events)
	case !r.Meta.HasTraceHash:
		fmt.Fprintf(&b, "replay trace hash %016x (%d events); %s\n", res.TraceHash, res.Events, r.Note)
	default:
		fmt.Fprintf(&b, "replay DIVERGED: trace hash %016x, the plan expects %016x\n", res.TraceHash, r.Meta.TraceHash)
		if r.Divergence != nil && !r.Divergence.IdenticalTrace {
			fmt.Fprintf(&b, "%s\n", divergenceText(*r.Divergence))
		}
		if r.Note != "" {
			fmt.Fprintf(&b, "%s\n", r.Note)
		}
	}
	if r.Meta.Revision != "" && r.Meta.Revision != Revision() {
		fmt.Fprintf(&b, "the plan was drawn by felixsim %s; this is %s\n", r.Meta.Revision, Revision())
	}
	return b.String()
}

// divergenceText names the first differing event, saved vs replayed.
func divergenceText(d world.Divergence) string {
	switch {
	case d.MissingA:
		return fmt.Sprintf("first diverging event %d: the saved trace ended (%d events); the replay has %s", d.Index, d.LenA, d.B)
	case d.MissingB:
		return fmt.Sprintf("first diverging event %d: the replay ended (%d events); the saved trace has %s", d.Index, d.LenB, d.A)
	}
	return fmt.Sprintf("first diverging event %d:\n  saved:    %s\n  replayed: %s", d.Index, d.A, d.B)
}
