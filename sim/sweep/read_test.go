package sweep

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"
)

// sampleReport is a report of shard 2/3 of seeds 1..10 (seeds 2, 5, 8)
// with two failures, two vacuous seeds (one of them failing) and coverage
// summed over two seeds.
func sampleReport() *Report {
	return &Report{Format: ReportFormat, Seeds: "1..10", Shard: "2/3", Duration: "2s", Faults: "all",
		Defects: "commit-as-two-records", RepeatFraction: 0.05, SeedsRun: 3, SeedsRepeated: 1, LastSeed: 8, Complete: true,
		Failures: []Failure{
			{Seed: 2, Invariant: "NoPartialCommit", Family: FamilySafety, ExitCode: 1, Message: "reader saw half",
				Reproduce: "felixsim run --seed 2 --duration 2000ms --defects commit-as-two-records"},
			{Seed: 8, Invariant: InvariantDeterminism, Family: FamilyDeterminism, ExitCode: 3, Message: "first divergence at event 9",
				Reproduce: "felixsim run --seed 8 --duration 2000ms --check-determinism"},
		},
		Vacuous: 2, VacuousSeeds: []VacuousSeed{{Seed: 5, Reason: "3 acknowledged writes, under the floor of 10"}, {Seed: 8, Reason: "no reads"}},
		CoverageSeeds: 2, Coverage: map[string]uint64{"fault.kill.fired": 4, "fault.kill.effect": 0, "raft.failover": 9},
		Seconds: 1.5, CPUSeconds: 2.25, Jobs: 2, Shards: 1, JobSeconds: 3}
}

// asV2 is a version 3 report's text as version 2 wrote it: its format,
// without the fields version 3 added.
func asV2(t *testing.T, text string) string {
	t.Helper()
	out := strings.Replace(text, ReportFormat, ReportFormatV2, 1)
	for _, re := range []string{`(?m)^  "verdict": .*\n`, `(?m)^  "shards": .*\n`, `(?m)^  "job_seconds": .*\n`} {
		out = regexp.MustCompile(re).ReplaceAllString(out, "")
	}
	if strings.Count(out, "\n") != strings.Count(text, "\n")-3 {
		t.Fatalf("version 3 fields not all found in:\n%s", text)
	}
	return out
}

func encode(t testing.TB, r *Report) string {
	t.Helper()
	var b bytes.Buffer
	if err := r.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestReportRoundTrip: what WriteJSON writes, ReadReport reads back equal,
// wall time included; an empty failure list too.
func TestReportRoundTrip(t *testing.T) {
	for _, r := range []*Report{sampleReport(), func() *Report {
		r := sampleReport()
		r.Failures, r.Shard, r.Seeds, r.LastSeed, r.SeedsRun, r.SeedsRepeated = nil, "1/1", "3..3", 3, 1, 0
		r.Vacuous, r.VacuousSeeds, r.CoverageSeeds, r.Coverage = 0, nil, 0, nil
		return r
	}()} {
		text := encode(t, r)
		got, err := ReadReport("r.json", strings.NewReader(text))
		if err != nil {
			t.Fatalf("%v\n%s", err, text)
		}
		if !got.Equal(r) || got.Seconds != r.Seconds || got.CPUSeconds != r.CPUSeconds || got.Jobs != r.Jobs {
			t.Fatalf("read back %+v\nwant %+v", got, r)
		}
	}
}

// TestReadReportWithoutCPUSeconds: a version 2 report written before
// cpu_seconds existed still reads, with no CPU time and no seeds per
// CPU-minute; a version 3 report must have it.
func TestReadReportWithoutCPUSeconds(t *testing.T) {
	text := asV2(t, encode(t, sampleReport()))
	old := strings.Replace(text, "  \"cpu_seconds\": 2.25,\n", "", 1)
	if old == text {
		t.Fatalf("no cpu_seconds line in:\n%s", text)
	}
	got, err := ReadReport("old.json", strings.NewReader(old))
	if err != nil {
		t.Fatal(err)
	}
	if got.CPUSeconds != 0 || got.SeedsPerCPUMinute() != 0 || strings.Contains(got.Headline(), "CPU") {
		t.Fatalf("an old report reads as %v s of CPU, %v seeds per CPU-minute, headline %q", got.CPUSeconds, got.SeedsPerCPUMinute(), got.Headline())
	}
	v3 := strings.Replace(encode(t, sampleReport()), "  \"cpu_seconds\": 2.25,\n", "", 1)
	if _, err := ReadReport("v3.json", strings.NewReader(v3)); err == nil || !strings.Contains(err.Error(), `"cpu_seconds" is missing`) {
		t.Fatalf("a version 3 report without cpu_seconds: %v", err)
	}
	r := sampleReport() // 3 seeds in 2.25 s of CPU: 80 per CPU-minute
	if r.SeedsPerCPUMinute() != 80 || !strings.Contains(r.Headline(), "2.2 s of worker CPU (80 seeds per CPU-minute") {
		t.Fatalf("%v seeds per CPU-minute, headline %q", r.SeedsPerCPUMinute(), r.Headline())
	}
}

// TestReportJobsRateAndUtilisation: a report gives seeds per minute of
// wall time and how busy its jobs kept their CPUs, in its headline; a
// report written before jobs existed reads as 0 jobs and shows neither.
func TestReportJobsRateAndUtilisation(t *testing.T) {
	r := sampleReport() // 3 seeds in 1.5 s with 2 jobs, 2.25 s of CPU
	if r.SeedsPerMinute() != 120 || r.CPUUtilisation() != 0.75 {
		t.Fatalf("%v seeds per minute, utilisation %v; want 120 and 0.75", r.SeedsPerMinute(), r.CPUUtilisation())
	}
	h := r.Headline()
	for _, want := range []string{"1.5 s (120.0 seeds per minute, 2 jobs)", "the workers kept 75% of their 2 CPUs busy"} {
		if !strings.Contains(h, want) {
			t.Errorf("headline %q lacks %q", h, want)
		}
	}
	text := asV2(t, encode(t, r))
	old := strings.Replace(text, "  \"jobs\": 2,\n", "", 1)
	if old == text {
		t.Fatalf("no jobs line in:\n%s", text)
	}
	got, err := ReadReport("old.json", strings.NewReader(old))
	if err != nil {
		t.Fatal(err)
	}
	if got.Jobs != 0 || got.CPUUtilisation() != 0 || strings.Contains(got.Headline(), "per minute") || strings.Contains(got.Headline(), "busy") {
		t.Fatalf("a report without jobs reads as %d jobs, utilisation %v, headline %q", got.Jobs, got.CPUUtilisation(), got.Headline())
	}
}

// lineOf is the 1-based line of the first occurrence of needle in text.
func lineOf(t *testing.T, text, needle string) int {
	t.Helper()
	i := strings.Index(text, needle)
	if i < 0 {
		t.Fatalf("%q not in the report:\n%s", needle, text)
	}
	return 1 + strings.Count(text[:i], "\n")
}

// TestReadReportRefusesBrokenReports: each hand-broken report is refused,
// and the error names the file and the line where the break is (found in
// the text by the test, not by the reader).
func TestReadReportRefusesBrokenReports(t *testing.T) {
	good := encode(t, sampleReport())
	cases := []struct {
		name, old, new, lineAt, why string
	}{
		{"format", `"felixsim-sweep-report/4"`, `"felixsim-sweep-report/1"`, `"format"`, "format"},
		{"verdict", `"verdict": "safety"`, `"verdict": "liveness"`, `"verdict"`, `its failures and seeds give "safety"`},
		{"verdict name", `"verdict": "safety"`, `"verdict": "FAIL"`, `"verdict"`, "refused"},
		{"shards", `"shards": 1`, `"shards": 0`, `"shards"`, "outside 1.."},
		{"job seconds", `"job_seconds": 3`, `"job_seconds": -3`, `"job_seconds"`, "not a time"},
		{"seeds", `"1..10"`, `"10..1"`, `"seeds"`, "ends before it starts"},
		{"shard", `"2/3"`, `"4/3"`, `"shard"`, "index must be"},
		{"duration", `"duration": "2s"`, `"duration": "soon"`, `"duration"`, "not a positive duration"},
		{"fraction", `0.05`, `1.5`, `"repeat_fraction"`, "outside 0..1"},
		{"too many run", `"seeds_run": 3`, `"seeds_run": 4`, `"seeds_run"`, "has 3"},
		{"complete lies", `"complete": true`, `"complete": false`, `"complete"`, "complete is false"},
		{"repeated", `"seeds_repeated": 1`, `"seeds_repeated": 9`, `"seeds_repeated"`, "repeated"},
		{"last seed", `"last_seed": 8`, `"last_seed": 7`, `"last_seed"`, "not a seed of shard"},
		{"failure outside shard", `"seed":8`, `"seed":9`, `"seed":9`, "not a seed this shard ran"},
		{"failure order", `"seed":2,`, `"seed":11,`, `"seed":11`, "not a seed this shard ran"},
		{"family", `"family":"safety"`, `"family":"bad"`, `"family":"bad"`, "family"},
		{"reproduce", `felixsim run --seed 2 `, `felixsim run --seed 3 `, `--seed 3`, "not a felixsim run command for seed 2"},
		{"invariant", `"NoPartialCommit"`, `""`, `"invariant":""`, "not a name"},
		{"unknown field", `"faults": "all",`, `"faults": "all", "extra": 1,`, `"extra"`, "unknown field"},
		{"missing failure field", `"exit_code":1,`, ``, `"seed":2`, "has 5 fields"},
		{"unknown failure field", `"exit_code":1,`, `"exit_code":1,"x":2,`, `"seed":2`, "unknown field"},
		{"duplicate", `"faults": "all",`, `"faults": "all", "faults": "all",`, `"faults"`, "appears twice"},
		{"type", `"seeds_run": 3`, `"seeds_run": "3"`, `"seeds_run"`, "a string where a uint64 belongs"},
		{"negative", `"seeds_run": 3`, `"seeds_run": -3`, `"seeds_run"`, "number -3"},
		{"trailing", "1.5\n}\n", "1.5\n}\n{}\n", "{}", "more after"},
		{"syntax", `"complete": true,`, `"complete": tru,`, `"complete"`, "not JSON"},
		{"vacuous count", `"vacuous": 2`, `"vacuous": 1`, `"vacuous"`, "but 2 vacuous seeds are listed"},
		{"vacuous outside shard", `{"seed":5,"reason"`, `{"seed":6,"reason"`, `"seed":6`, "not a seed this shard ran"},
		{"vacuous order", `{"seed":8,"reason"`, `{"seed":2,"reason"`, `{"seed":2,"reason"`, "increasing seed order"},
		{"vacuous reason", `"reason":"no reads"`, `"reason":" "`, `"reason":" "`, "has no reason"},
		{"vacuous field", `"reason":"no reads"`, `"reason":"no reads","x":1`, `"reason":"no reads"`, "unknown field"},
		{"vacuous and failing", "\"seeds_run\": 3,\n  \"seeds_repeated\": 1,\n  \"last_seed\": 8,\n  \"complete\": true",
			"\"seeds_run\": 2,\n  \"seeds_repeated\": 1,\n  \"last_seed\": 8,\n  \"complete\": false", `{"seed":5,"reason"`, "more than the 2 seeds run"},
		{"coverage seeds", `"coverage_seeds": 2`, `"coverage_seeds": 4`, `"coverage_seeds"`, "4 seeds, but 3 seeds ran"},
		{"coverage point twice", `"raft.failover": 9`, `"raft.failover": 9, "raft.failover": 1`, `"raft.failover": 9,`, "appears twice"},
		{"coverage empty name", `"raft.failover": 9`, `"": 9`, `"": 9`, "empty or appears twice"},
		{"coverage negative", `"raft.failover": 9`, `"raft.failover": -9`, `"raft.failover"`, "number -9"},
		{"coverage not an object", `"coverage": {`, `"coverage": [{`, `"coverage"`, "belongs"},
		{"cpu negative", `"cpu_seconds": 2.25`, `"cpu_seconds": -2.25`, `"cpu_seconds"`, "cpu_seconds -2.25 is negative"},
		{"cpu type", `"cpu_seconds": 2.25`, `"cpu_seconds": "2"`, `"cpu_seconds"`, "a string where a float64 belongs"},
		{"jobs negative", `"jobs": 2`, `"jobs": -2`, `"jobs"`, "jobs -2 is negative"},
		{"jobs type", `"jobs": 2`, `"jobs": 2.5`, `"jobs"`, "a number 2.5 where a int belongs"},
	}
	for _, c := range cases {
		if strings.Count(good, c.old) == 0 {
			t.Fatalf("%s: %q not in the report", c.name, c.old)
		}
		text := strings.Replace(good, c.old, c.new, 1)
		want := fmt.Sprintf("bad.json:%d: ", lineOf(t, text, c.lineAt))
		_, err := ReadReport("bad.json", strings.NewReader(text))
		if err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: error %v; want it to start %q and say %q", c.name, err, want, c.why)
		}
	}
	missing := strings.Replace(good, `  "defects": "commit-as-two-records",`+"\n", "", 1)
	if _, err := ReadReport("m.json", strings.NewReader(missing)); err == nil || !strings.Contains(err.Error(), `field "defects" is missing`) {
		t.Errorf("a report without defects: %v", err)
	}
}

// TestReadReportRefusesEveryTruncation: a report cut at any byte before
// its closing brace is refused with the file and a line, never accepted
// and never a panic.
func TestReadReportRefusesEveryTruncation(t *testing.T) {
	good := encode(t, sampleReport())
	end := strings.LastIndex(good, "}")
	pat := regexp.MustCompile(`^cut\.json:[0-9]+: report refused: `)
	for i := 0; i <= end; i++ {
		_, err := ReadReport("cut.json", strings.NewReader(good[:i]))
		if err == nil || !pat.MatchString(err.Error()) {
			t.Fatalf("report cut at byte %d of %d: %v", i, len(good), err)
		}
	}
}
