# felixsim build targets. `make test` is what CI runs (.ci/run); it must stay
# under 10 minutes on 2 cores. Long sweeps and benchmarks have their own targets.

GO       ?= go
PKGS     := ./...
GOFILES   = $(shell git ls-files '*.go' 2>/dev/null || find . -name '*.go')

.PHONY: test lint vet fmt-check install bench bench-compare bench-floor sweep-scale profile-subsystems fuzz sweep detection shrink-bench tlc tlc-trace tla-trace-table build timeline-test verdict-agreement perf-work

## test: lint, then every unit, property and bounded simulation test, then
## the store and the cluster again with the expensive invariant checks built
## in (-tags invariants: every logstore Commit decodes what it wrote and
## compares it with what it installed), then the deeper property runs: 2000
## rapid checks of the state machine and client, and the 3.3 M-state model
## config whose counts must equal TLC's.
test: lint
	$(GO) test -count=1 -timeout 9m $(PKGS)
	$(GO) test -count=1 -timeout 5m -tags invariants ./logstore ./sim/cluster
	$(GO) test -count=1 -timeout 5m ./statemachine/... ./client/... -rapid.checks=2000
	$(GO) test -count=1 -timeout 5m ./tla -long -run Long

## timeline-test: open a failing run's timeline.html in headless Chromium
## (Debian's, see scripts/install-chromium.sh): no console error, no request
## beyond the page, the violation shown; the screenshot is kept in
## test-output/. Its own target: it needs the browser and takes ~10 s.
TIMELINE_OUT ?= $(CURDIR)/test-output/timeline
timeline-test:
	TIMELINE_OUT=$(TIMELINE_OUT) $(GO) test -count=1 -timeout 5m -tags browser -run TestTimelineInChromium -v ./sim/timeline

## verdict-agreement: issue 32's acceptance in full: for every planted
## defect, `felixsim run` of each of seeds 1..10 and `felixsim sweep
## --seeds 1..10` agree on every seed's family, and the sweep exits with
## the most serious seed's code (10 s runs; make test runs seeds 1..3).
## About 2 minutes on 2 cores.
verdict-agreement:
	$(GO) test -count=1 -timeout 20m ./cmd/felixsim -run TestRunAndSweepAgree -verdict-agreement -v

## lint: gofmt must have nothing to say and go vet must pass.
lint: fmt-check vet

fmt-check:
	@out=$$(gofmt -l $(GOFILES)); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)
	$(GO) vet -tags invariants ./logstore
	$(GO) vet -tags browser ./sim/timeline

## build: the felixsim binary into ./bin, stamped with this checkout's
## revision (felixsim --version; the revision saved plans record).
BUILDVCS := $(shell git rev-parse --git-dir >/dev/null 2>&1 && echo -buildvcs=true)
build:
	$(GO) build $(BUILDVCS) -o bin/felixsim ./cmd/felixsim

## install: felixsim onto your PATH ($$(go env GOPATH)/bin, or GOBIN), so
## the reproduce lines felixsim prints paste as they are.
install:
	$(GO) install $(BUILDVCS) ./cmd/felixsim
	@echo "installed: $$(command -v felixsim || echo "$$($(GO) env GOPATH)/bin/felixsim (add $$($(GO) env GOPATH)/bin to PATH)")"

## bench: every benchmark, 5 runs each, for benchstat (see docs/performance.md).
bench:
	$(GO) test -run '^$$' -bench . -benchmem -count 5 $(PKGS) | tee bench.txt

## bench-compare: OLD=rev [NEW=rev]: build felixsim at OLD and at NEW (default:
## this working tree) and compare them interleaved: `felixsim run --seed S
## --json` for SEEDS (default 1..6), ROUNDS rounds (default 3), summed
## sim-s/wall-s, sim-s/cpu-s, ops and events per simulated second with the
## new/old ratios; then BenchmarkDefaultRun -cpu 1 of both, BENCH_COUNT times
## (default 3, 0 skips it), through benchstat. See scripts/bench-compare.sh.
bench-compare:
	@test -n "$(OLD)" || { echo "usage: make bench-compare OLD=rev [NEW=rev]"; exit 2; }
	scripts/bench-compare.sh "$(OLD)" "$(NEW)"

## bench-floor: felixsim's speed figure, its CPU per simulated second over
## etcd raft alone at the same density: `felixsim run --seed S --json` for
## SEEDS (default 1..6) and the bare raft harness (bench/bareraft) at each
## run's density for its simulated seconds, interleaved, ROUNDS rounds
## (default 3); prints ms of CPU per simulated second of both and their
## ratio, then the rows of docs/performance.md's table, each naming its
## revision. OLD=rev adds that revision's felixsim. About a minute on 2
## cores. See scripts/bench-floor.sh and docs/performance.md.
bench-floor:
	OLD="$(OLD)" scripts/bench-floor.sh

## sweep-scale: seeds per minute of `felixsim sweep --jobs N` for N = 1, 2
## and up to the CPUs (SCALE_JOBS overrides), over the same SCALE_SEEDS
## (default 1..40, SCALE_DURATION 20s each), against N times --jobs 1.
## Measure on an idle machine. See scripts/sweep-scale.sh.
sweep-scale: build
	scripts/sweep-scale.sh

## profile-subsystems: CPU of a default run (trace validated, as felixsim
## run does) by subsystem (store, raft, broker, StoreMatchesMemory, checks,
## trace, world, workload, wire, GC, ...) in ms per simulated second, each
## beside its budget (scripts/subsystem-budgets.txt, in floors: etcd raft
## alone, measured in the same session); a subsystem over budget is marked
## OVER and the target fails (exit 1); then the rows of docs/performance.md's
## table with this tree's revision. See scripts/profile-subsystems.sh.
profile-subsystems:
	scripts/profile-subsystems.sh

## perf-work: docs/performance.md's table of the default run's work per
## simulated second (density, events by process, operations, store bytes)
## for seeds 1 and 2, as this tree computes it; make test fails when the
## document's table differs (TestPerfWorkTable). About 10 s.
perf-work:
	@$(GO) test -count=1 ./cmd/felixsim -run '^TestPerfWorkTable$$' -perf-work -v | grep '^|'

## fuzz: each fuzz target for FUZZTIME (default 30s).
FUZZTIME ?= 30s
fuzz:
	@scripts/fuzz-all.sh $(FUZZTIME)

## sweep: `felixsim sweep` over seeds 1..SEEDS (default 200) with every fault
## kind, SWEEP_DURATION of faults each, every seed run twice in its process
## (the trace hashes must match), JOBS worker processes (default: the CPUs).
## The report lists the failing and the vacuous seeds and the coverage summed
## over the seeds; its headline gives the workers' CPU time and seeds per
## CPU-minute. See docs/sweep.md for shards, merge, --for and the report.
SEEDS ?= 200
SWEEP_DURATION ?= 20s
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
sweep: build
	bin/felixsim sweep --seeds 1..$(SEEDS) --duration $(SWEEP_DURATION) --repeat-fraction 1.0 --jobs $(JOBS)

## detection: seeds-to-detection of every planted defect over seeds
## 1..DETECTION_SEEDS (default 200), 10 s runs, each defect under its catch
## plan (sim/runner's defect tables), JOBS test processes side by side: one
## line per defect with the seeds caught and the median and max seeds from
## any start to a catch. About 4 minutes on 2 cores at 200 seeds.
DETECTION_SEEDS ?= 200
detection:
	scripts/detection.sh $(DETECTION_SEEDS) $(JOBS)

## shrink-bench: the acceptance measurement of `felixsim shrink`: for every
## planted defect, a seed failing at 60 s is shrunk with two workers within
## the 60 s budget to a verified plan at least 5x smaller in faults plus
## operations; prints a table row per defect (docs/performance.md).
shrink-bench:
	$(GO) test -count=1 -timeout 20m ./sim/shrink -run 'TestShrinkAcceptance' -shrink-bench -v

## tlc: run TLC on every TLA+ config; needs TLA2TOOLS_JAR (see tla/README.md).
tlc:
	@tla/run-tlc.sh

## tla-trace-table: print the first four columns of tla/README.md's trace
## table (each row's run, group, steps and the Go mirror's verdict) as this
## tree gives them; TestTLAReadmeTraceTable (in make test) fails when the
## README's rows differ. The TLC column is measured with make tlc-trace and
## names the revision it was measured at.
tla-trace-table:
	@$(GO) test -count=1 ./sim/runner -run '^TestTLAReadmeTraceTable$$' -print-tla-table -v | grep '^|'

## tlc-trace: validate one raft group of an exported trace (TRACE=FILE from
## `felixsim run --trace-out`, optional GROUP=g) with TLC and with the Go
## mirror, and require the same verdict; needs TLA2TOOLS_JAR.
tlc-trace:
	@tla/run-tlc-trace.sh "$(TRACE)" "$(GROUP)" "$(NODES)"
