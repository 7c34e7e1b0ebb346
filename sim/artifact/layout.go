package artifact

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/runner"
	"github.com/felixsim/felixsim/sim/timeline"
)

// The files of an artifact directory. The event trace is events.ndjson:
// the brokers' abstract (model) trace, which `felixsim run --trace-out
// FILE` exports, is another format, and an artifact never holds it.
const (
	PlanFile     = "plan.txt"
	HistoryFile  = "history.jsonl"
	ReportFile   = "report.json"
	EventsFile   = "events.ndjson"
	TimelineFile = "timeline.html"
	// EventsFileV1 is where an artifact written before the rename kept its
	// event trace; replay reads it when EventsFile is missing.
	EventsFileV1 = "trace.ndjson"
)

// The files `felixsim shrink` adds to the shrunk run's artifact.
const (
	OriginalPlanFile  = "original-plan.txt"
	ShrinkListingFile = "shrink.txt"
)

// Files are every file name a felixsim command writes into an artifact
// directory (the older event trace's name among them, so a forced write
// over an old artifact checks it too).
var Files = []string{PlanFile, HistoryFile, ReportFile, EventsFile, TimelineFile, EventsFileV1, OriginalPlanFile, ShrinkListingFile}

// Recording returns o set to keep what an artifact holds: the history,
// the trace and the leadership terms. None of them changes the run.
func Recording(o runner.Options) runner.Options {
	o.KeepHistory, o.RecordTrace, o.Observe = true, true, true
	return o
}

// Prepare makes dir (and its parents) and proves it writable by creating
// and removing a probe file, so a run that could not save its artifact is
// refused before it starts.
func Prepare(dir string) error {
	if dir == "" {
		return fmt.Errorf("artifact directory refused: empty path")
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return fmt.Errorf("artifact directory %s refused: it is a file", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("artifact directory %s refused: %w", dir, err)
	}
	probe := filepath.Join(dir, ".felixsim-write-probe")
	if err := os.WriteFile(probe, []byte("probe\n"), 0o644); err != nil {
		return fmt.Errorf("artifact directory %s refused: not writable: %w", dir, err)
	}
	return os.Remove(probe)
}

// CheckWritable proves path can be written before a run starts: it opens
// it for writing without truncating it, and removes it again if it did
// not exist before. A path that exists and is not a regular file (a
// device such as /dev/stdout or /dev/full, a named pipe) is not probed:
// opening a pipe would wait for its reader; a write that fails later is
// reported after the verdict.
func CheckWritable(path string) error {
	fi, statErr := os.Stat(path)
	if statErr == nil && !fi.Mode().IsRegular() {
		if fi.IsDir() {
			return fmt.Errorf("%s refused: it is a directory", path)
		}
		return nil
	}
	existed := statErr == nil
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("%s refused: not writable: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("%s refused: %w", path, err)
	}
	if !existed {
		return os.Remove(path)
	}
	return nil
}

// Write saves res, a run made with Recording options, into dir (made by
// Prepare): the plan with revision and expected hash, the history, the
// report, the trace and the timeline page.
func Write(dir string, res *runner.Result, revision string) error {
	if res.History == nil || (res.Trace == nil && res.Events > 0) {
		return fmt.Errorf("artifact %s refused: the run kept no history or trace (use artifact.Recording options)", dir)
	}
	writers := []struct {
		name string
		fn   func(io.Writer) error
	}{
		{PlanFile, func(w io.Writer) error { return WritePlan(w, res.Plan, metaOf(res, revision)) }},
		{HistoryFile, func(w io.Writer) error { return properties.EncodeHistory(w, res.History) }},
		{ReportFile, func(w io.Writer) error { return WriteReport(w, res, revision, dir) }},
		{EventsFile, func(w io.Writer) error {
			return WriteTrace(w, res.Trace, res.TraceHash, res.Events, res.TraceTruncated)
		}},
		{TimelineFile, func(w io.Writer) error { return timeline.Write(w, res) }},
	}
	for _, wr := range writers {
		if err := writeFile(filepath.Join(dir, wr.name), wr.fn); err != nil {
			return err
		}
	}
	return nil
}

// writeFile writes path through fn, reporting the first error of either.
func writeFile(path string, fn func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("artifact: %w", err)
	}
	werr := fn(f)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		return fmt.Errorf("artifact %s: %w", path, err)
	}
	return nil
}
