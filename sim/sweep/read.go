package sweep

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/felixsim/felixsim/sim/verdict"
)

// ReportBytesMax bounds a report file the reader accepts.
const ReportBytesMax = 64 << 20

// ReadReport reads a report as WriteJSON wrote it, strictly: one JSON
// object with every field, no unknown or repeated field, nothing after it,
// and contents that agree with themselves (failures inside the shard's
// seeds and in seed order, counts that add up). A refusal names the file
// (name) and the line.
func ReadReport(name string, r io.Reader) (*Report, error) {
	data, err := io.ReadAll(io.LimitReader(r, ReportBytesMax+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(data) > ReportBytesMax {
		return nil, fmt.Errorf("%s: report refused: larger than %d bytes", name, ReportBytesMax)
	}
	p := &reportParser{name: name, data: data, dec: json.NewDecoder(bytes.NewReader(data)), lines: map[string]int{}}
	rep, err := p.parse()
	if err != nil {
		return nil, err
	}
	return rep, nil
}

// reportParser walks a report's JSON token by token, so that each field's
// line is known for the error that refuses it.
type reportParser struct {
	name  string
	data  []byte
	dec   *json.Decoder
	lines map[string]int // field (or failures[i]) -> line
	// verdict is the report's verdict field (a version 3 report's).
	verdict verdict.Verdict
}

// line is the 1-based line of byte offset off.
func (p *reportParser) line(off int64) int {
	off = min(max(off, 0), int64(len(p.data)))
	return 1 + bytes.Count(p.data[:off], []byte("\n"))
}

// nextLine is the line of the next value: past the decoder's offset,
// whitespace and a separating comma.
func (p *reportParser) nextLine() int {
	off := p.dec.InputOffset()
	for off < int64(len(p.data)) && strings.IndexByte(" \t\r\n,", p.data[off]) >= 0 {
		off++
	}
	return p.line(off)
}

// errorAt refuses the report at line.
func (p *reportParser) errorAt(line int, format string, args ...any) error {
	return fmt.Errorf("%s:%d: report refused: %s", p.name, line, fmt.Sprintf(format, args...))
}

// tokenError turns an error reading a token (a brace, a bracket, a key)
// into a refusal with its line.
func (p *reportParser) tokenError(err error) error {
	var syn *json.SyntaxError
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return p.truncated()
	case errors.As(err, &syn):
		return p.errorAt(p.line(syn.Offset), "not JSON: %v", syn)
	}
	return p.errorAt(p.nextLine(), "%v", err)
}

// valueError turns an error decoding the value of field, which starts on
// line, into a refusal naming the field and the line.
func (p *reportParser) valueError(field string, line int, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return p.truncated()
	case errors.As(err, &syn):
		return p.errorAt(line, "%s: not JSON: %v", field, syn)
	case errors.As(err, &typ):
		return p.errorAt(line, "%s: a %s where a %s belongs", field, typ.Value, typ.Type)
	}
	return p.errorAt(line, "%s: %v", field, err)
}

// truncated refuses a report that ends before its closing brace.
func (p *reportParser) truncated() error {
	return p.errorAt(p.line(int64(len(p.data))), "truncated: the JSON ends early")
}

// reportFields are the fields every report carries; reportFieldsV3 those
// version 3 added (or made required).
var (
	reportFields = []string{"format", "seeds", "shard", "duration", "faults", "defects", "repeat_fraction",
		"seeds_run", "seeds_repeated", "last_seed", "complete", "failures", "vacuous", "vacuous_seeds",
		"coverage_seeds", "coverage", "seconds"}
	reportFieldsV3 = []string{"verdict", "cpu_seconds", "jobs", "shards", "job_seconds"}
)

func (p *reportParser) parse() (*Report, error) {
	if err := p.delim('{'); err != nil {
		return nil, err
	}
	rep := &Report{}
	for p.dec.More() {
		tok, err := p.dec.Token()
		if err != nil {
			return nil, p.tokenError(err)
		}
		key, ok := tok.(string)
		if !ok { // Token refuses a non-string key; this keeps the reader panic-free regardless
			return nil, p.errorAt(p.line(p.dec.InputOffset()), "found %v where a field name belongs", tok)
		}
		line := p.line(p.dec.InputOffset())
		if _, dup := p.lines[key]; dup {
			return nil, p.errorAt(line, "field %q appears twice", key)
		}
		p.lines[key] = line
		if err := p.field(rep, key, line); err != nil {
			return nil, err
		}
	}
	if err := p.delim('}'); err != nil {
		return nil, err
	}
	if rest := bytes.TrimSpace(p.data[p.dec.InputOffset():]); len(rest) > 0 {
		return nil, p.errorAt(p.nextLine(), "more after the report's closing brace")
	}
	if err := p.checkVersion(rep); err != nil {
		return nil, err
	}
	if err := p.check(rep); err != nil {
		return nil, err
	}
	return rep, nil
}

// delim reads the delimiter want.
func (p *reportParser) delim(want json.Delim) error {
	tok, err := p.dec.Token()
	if err != nil {
		return p.tokenError(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != want {
		return p.errorAt(p.line(p.dec.InputOffset()), "found %v where %q belongs", tok, string(want))
	}
	return nil
}

// field decodes the value of key into rep.
func (p *reportParser) field(rep *Report, key string, line int) error {
	var dst any
	switch key {
	case "format":
		dst = &rep.Format
	case "seeds":
		dst = &rep.Seeds
	case "shard":
		dst = &rep.Shard
	case "duration":
		dst = &rep.Duration
	case "faults":
		dst = &rep.Faults
	case "defects":
		dst = &rep.Defects
	case "repeat_fraction":
		dst = &rep.RepeatFraction
	case "seeds_run":
		dst = &rep.SeedsRun
	case "seeds_repeated":
		dst = &rep.SeedsRepeated
	case "last_seed":
		dst = &rep.LastSeed
	case "complete":
		dst = &rep.Complete
	case "seconds":
		dst = &rep.Seconds
	case "cpu_seconds":
		dst = &rep.CPUSeconds
	case "jobs":
		dst = &rep.Jobs
	case "verdict":
		dst = &p.verdict
	case "shards":
		dst = &rep.Shards
	case "job_seconds":
		dst = &rep.JobSeconds
	case "vacuous":
		dst = &rep.Vacuous
	case "coverage_seeds":
		dst = &rep.CoverageSeeds
	case "model_states_seeds":
		dst = &rep.ModelStatesSeeds
	case "model_states":
		dst = &rep.ModelStates
	case "model_states_visited":
		dst = &rep.ModelStatesVisited
	case "model_states_reachable":
		dst = &rep.ModelStatesReachable
	case "steer_arms":
		dst = &rep.SteerArms
	case "failures":
		return p.failures(rep)
	case "vacuous_seeds":
		return p.vacuousSeeds(rep)
	case "coverage":
		return p.coverage(rep)
	default:
		return p.errorAt(line, "unknown field %q", key)
	}
	if err := p.dec.Decode(dst); err != nil {
		return p.valueError(fmt.Sprintf("field %q", key), line, err)
	}
	return nil
}

// failures decodes the failures array, one strict object at a time.
func (p *reportParser) failures(rep *Report) error {
	if err := p.delim('['); err != nil {
		return err
	}
	rep.Failures = []Failure{}
	for i := 0; p.dec.More(); i++ {
		line := p.nextLine()
		raw := json.RawMessage{}
		if err := p.dec.Decode(&raw); err != nil {
			return p.valueError(fmt.Sprintf("failures[%d]", i), line, err)
		}
		var f Failure
		if err := decodeStrict(raw, &f, failureFieldNames); err != nil {
			return p.errorAt(line, "failures[%d]: %v", i, err)
		}
		p.lines[fmt.Sprintf("failures[%d]", i)] = line
		rep.Failures = append(rep.Failures, f)
	}
	return p.delim(']')
}

// vacuousSeeds decodes the vacuous_seeds array, one strict object at a time.
func (p *reportParser) vacuousSeeds(rep *Report) error {
	if err := p.delim('['); err != nil {
		return err
	}
	rep.VacuousSeeds = []VacuousSeed{}
	for i := 0; p.dec.More(); i++ {
		line := p.nextLine()
		raw := json.RawMessage{}
		if err := p.dec.Decode(&raw); err != nil {
			return p.valueError(fmt.Sprintf("vacuous_seeds[%d]", i), line, err)
		}
		var v VacuousSeed
		if err := decodeStrict(raw, &v, vacuousFieldNames); err != nil {
			return p.errorAt(line, "vacuous_seeds[%d]: %v", i, err)
		}
		p.lines[fmt.Sprintf("vacuous_seeds[%d]", i)] = line
		rep.VacuousSeeds = append(rep.VacuousSeeds, v)
	}
	return p.delim(']')
}

// coverage decodes the coverage object, a point at a time, refusing an
// empty or repeated point name.
func (p *reportParser) coverage(rep *Report) error {
	if err := p.delim('{'); err != nil {
		return err
	}
	rep.Coverage = map[string]uint64{}
	for p.dec.More() {
		tok, err := p.dec.Token()
		if err != nil {
			return p.tokenError(err)
		}
		line := p.line(p.dec.InputOffset())
		name, ok := tok.(string)
		if !ok {
			return p.errorAt(line, "coverage: found %v where a point name belongs", tok)
		}
		if _, dup := rep.Coverage[name]; dup || name == "" {
			return p.errorAt(line, "coverage: point %q is empty or appears twice", name)
		}
		var n uint64
		if err := p.dec.Decode(&n); err != nil {
			return p.valueError(fmt.Sprintf("coverage point %q", name), line, err)
		}
		rep.Coverage[name] = n
	}
	return p.delim('}')
}

// The fields of a Failure and of a VacuousSeed in JSON, all required.
var (
	failureFieldNames = []string{"seed", "invariant", "family", "exit_code", "message", "reproduce"}
	vacuousFieldNames = []string{"seed", "reason"}
)

// decodeStrict reads one object into dst: every field of names, nothing
// unknown.
func decodeStrict(raw json.RawMessage, dst any, names []string) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return err
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return err
	}
	if len(fields) != len(names) {
		return fmt.Errorf("has %d fields, want %d (%s)", len(fields), len(names), strings.Join(names, ", "))
	}
	return nil
}

// checkVersion refuses a format the reader does not know and a missing
// field of the report's version (or a field its version lacks), and fills
// in for a version 2 report what version 3 added.
func (p *reportParser) checkVersion(rep *Report) error {
	end := p.line(int64(len(p.data)))
	want := reportFields
	switch rep.Format {
	case ReportFormat, ReportFormatV3:
		want = append(slices.Clone(reportFields), reportFieldsV3...)
	case ReportFormatV2:
		for _, f := range []string{"verdict", "shards", "job_seconds"} {
			if line, ok := p.lines[f]; ok {
				return p.errorAt(line, "field %q is version 3's, in a %q report", f, rep.Format)
			}
		}
		rep.Shards, rep.JobSeconds = 1, rep.Seconds*float64(rep.Jobs)
	default:
		return p.errorAt(p.lines["format"], "format %q, want %q (or the older %q or %q)", rep.Format, ReportFormat, ReportFormatV3, ReportFormatV2)
	}
	for _, f := range want {
		if _, ok := p.lines[f]; !ok {
			return p.errorAt(end, "field %q is missing", f)
		}
	}
	rep.Format = ReportFormat // read, it is this version's report
	return nil
}

// check refuses a report whose contents contradict themselves.
func (p *reportParser) check(rep *Report) error {
	at := func(field string) int { return p.lines[field] }
	rg, err := ParseRange(rep.Seeds)
	if err != nil {
		return p.errorAt(at("seeds"), "%v", err)
	}
	sh, err := ParseShard(rep.Shard)
	if err != nil {
		return p.errorAt(at("shard"), "%v", err)
	}
	sched := Schedule{Range: rg, Shard: sh}
	if d, err := time.ParseDuration(rep.Duration); err != nil || d <= 0 {
		return p.errorAt(at("duration"), "duration %q is not a positive duration", rep.Duration)
	}
	if rep.Faults == "" || rep.Defects == "" || strings.ContainsAny(rep.Faults+rep.Defects, " \t\n") {
		return p.errorAt(at("faults"), "faults %q and defects %q must be non-empty lists without spaces", rep.Faults, rep.Defects)
	}
	if !(rep.RepeatFraction >= 0 && rep.RepeatFraction <= 1) {
		return p.errorAt(at("repeat_fraction"), "repeat_fraction %v is outside 0..1", rep.RepeatFraction)
	}
	if math.IsNaN(rep.Seconds) || rep.Seconds < 0 {
		return p.errorAt(at("seconds"), "seconds %v is negative", rep.Seconds)
	}
	if math.IsNaN(rep.CPUSeconds) || rep.CPUSeconds < 0 {
		return p.errorAt(at("cpu_seconds"), "cpu_seconds %v is negative", rep.CPUSeconds)
	}
	if rep.Jobs < 0 {
		return p.errorAt(at("jobs"), "jobs %d is negative", rep.Jobs)
	}
	if rep.Shards < 1 || uint64(rep.Shards) > ShardCountMax {
		return p.errorAt(at("shards"), "shards %d is outside 1..%d", rep.Shards, ShardCountMax)
	}
	if math.IsNaN(rep.JobSeconds) || rep.JobSeconds < 0 || math.IsInf(rep.JobSeconds, 0) {
		return p.errorAt(at("job_seconds"), "job_seconds %v is not a time", rep.JobSeconds)
	}
	if err := checkModelStates(rep); err != nil {
		return p.errorAt(at("model_states"), "%v", err)
	}
	return p.checkCounts(rep, sched)
}

// checkCounts refuses counts and seeds the schedule cannot have produced.
func (p *reportParser) checkCounts(rep *Report, sched Schedule) error {
	at := func(field string) int { return p.lines[field] }
	n, known := sched.Count()
	switch {
	case known && rep.SeedsRun > n:
		return p.errorAt(at("seeds_run"), "%d seeds run, but shard %s of %s has %d", rep.SeedsRun, rep.Shard, rep.Seeds, n)
	case known && rep.Complete != (rep.SeedsRun == n):
		return p.errorAt(at("complete"), "complete is %v with %d of %d seeds run", rep.Complete, rep.SeedsRun, n)
	case !known && rep.Complete:
		return p.errorAt(at("complete"), "an open range %s cannot be complete", rep.Seeds)
	case rep.SeedsRepeated > rep.SeedsRun:
		return p.errorAt(at("seeds_repeated"), "%d seeds repeated of %d run", rep.SeedsRepeated, rep.SeedsRun)
	case uint64(len(rep.Failures)) > rep.SeedsRun:
		return p.errorAt(at("failures"), "%d failures among %d seeds run", len(rep.Failures), rep.SeedsRun)
	case (rep.SeedsRun == 0) != (rep.LastSeed == 0):
		return p.errorAt(at("last_seed"), "last_seed %d with %d seeds run", rep.LastSeed, rep.SeedsRun)
	case rep.LastSeed != 0 && !sched.Has(rep.LastSeed):
		return p.errorAt(at("last_seed"), "last_seed %d is not a seed of shard %s of %s", rep.LastSeed, rep.Shard, rep.Seeds)
	}
	for i, f := range rep.Failures {
		line := p.lines[fmt.Sprintf("failures[%d]", i)]
		if err := checkFailure(f, sched, rep.LastSeed); err != nil {
			return p.errorAt(line, "failures[%d]: %v", i, err)
		}
		if i > 0 && f.Seed <= rep.Failures[i-1].Seed {
			return p.errorAt(line, "failures[%d]: seed %d after seed %d: failures must be in increasing seed order", i, f.Seed, rep.Failures[i-1].Seed)
		}
	}
	if line, ok := p.lines["verdict"]; ok && p.verdict != rep.Verdict() {
		return p.errorAt(line, "verdict %q, but its failures and seeds give %q", p.verdict, rep.Verdict())
	}
	return p.checkVacuous(rep, sched)
}

// checkVacuous refuses vacuous seeds and coverage counts the schedule
// cannot have produced.
func (p *reportParser) checkVacuous(rep *Report, sched Schedule) error {
	at := func(field string) int { return p.lines[field] }
	switch {
	case rep.Vacuous != uint64(len(rep.VacuousSeeds)):
		return p.errorAt(at("vacuous"), "vacuous is %d but %d vacuous seeds are listed", rep.Vacuous, len(rep.VacuousSeeds))
	case rep.Vacuous > rep.SeedsRun:
		return p.errorAt(at("vacuous"), "%d vacuous seeds among %d seeds run", rep.Vacuous, rep.SeedsRun)
	case rep.CoverageSeeds > rep.SeedsRun:
		return p.errorAt(at("coverage_seeds"), "coverage summed over %d seeds, but %d seeds ran", rep.CoverageSeeds, rep.SeedsRun)
	}
	failing := map[uint64]bool{}
	for _, f := range rep.Failures {
		failing[f.Seed] = true
	}
	listed := uint64(len(rep.Failures))
	for i, v := range rep.VacuousSeeds {
		line := p.lines[fmt.Sprintf("vacuous_seeds[%d]", i)]
		if !failing[v.Seed] {
			listed++
		}
		if listed > rep.SeedsRun {
			return p.errorAt(line, "vacuous_seeds[%d]: failing and vacuous seeds are %d, more than the %d seeds run", i, listed, rep.SeedsRun)
		}
		switch {
		case !sched.Has(v.Seed) || v.Seed > rep.LastSeed:
			return p.errorAt(line, "vacuous_seeds[%d]: seed %d is not a seed this shard ran (up to %d)", i, v.Seed, rep.LastSeed)
		case i > 0 && v.Seed <= rep.VacuousSeeds[i-1].Seed:
			return p.errorAt(line, "vacuous_seeds[%d]: seed %d after seed %d: vacuous seeds must be in increasing seed order", i, v.Seed, rep.VacuousSeeds[i-1].Seed)
		case strings.TrimSpace(v.Reason) == "":
			return p.errorAt(line, "vacuous_seeds[%d]: seed %d has no reason", i, v.Seed)
		}
	}
	return nil
}

// checkFailure refuses a failure the schedule cannot hold or that cannot
// be reproduced.
func checkFailure(f Failure, sched Schedule, lastSeed uint64) error {
	switch {
	case !sched.Has(f.Seed) || f.Seed > lastSeed:
		return fmt.Errorf("seed %d is not a seed this shard ran (up to %d)", f.Seed, lastSeed)
	case f.Invariant == "" || strings.ContainsAny(f.Invariant, " \t\n"):
		return fmt.Errorf("invariant %q is not a name", f.Invariant)
	case !knownFamily(f.Family):
		return fmt.Errorf("family %q is not one of safety, liveness, crash, determinism", f.Family)
	case !strings.HasPrefix(f.Reproduce, "felixsim run ") || !strings.Contains(f.Reproduce+" ", fmt.Sprintf(" --seed %d ", f.Seed)):
		return fmt.Errorf("reproduce %q is not a felixsim run command for seed %d", f.Reproduce, f.Seed)
	}
	return nil
}

// checkModelStates refuses a model-state union that is not sorted and
// unique, or counts that contradict it.
func checkModelStates(rep *Report) error {
	for i := 1; i < len(rep.ModelStates); i++ {
		if rep.ModelStates[i-1] >= rep.ModelStates[i] {
			return fmt.Errorf("model_states not sorted and unique at %d", i)
		}
	}
	if rep.ModelStatesVisited < 0 || rep.ModelStatesVisited > len(rep.ModelStates) || rep.ModelStatesVisited > rep.ModelStatesReachable {
		return fmt.Errorf("model_states_visited %d outside 0..min(%d states, %d reachable)", rep.ModelStatesVisited, len(rep.ModelStates), rep.ModelStatesReachable)
	}
	if rep.ModelStatesSeeds > rep.SeedsRun {
		return fmt.Errorf("model_states_seeds %d exceeds seeds_run %d", rep.ModelStatesSeeds, rep.SeedsRun)
	}
	return nil
}
