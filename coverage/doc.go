// Package coverage counts how often each interesting path of a run was
// taken: a fault that fired and had an effect, a failover, a recovery that
// truncated a torn transaction, a planted defect's path. Silence must mean
// something: a point declared here that never happens over a sweep's seed
// range is a failure of the test bed, like FoundationDB's code probes or
// Antithesis' "sometimes" assertions.
//
// It is a leaf: it imports no felixsim package, so the store, the broker,
// the world and the runner can all count into one *Counts that the runner
// hands them. A nil *Counts counts nothing, so code that is not given one
// pays a nil check.
//
// Every point has one name, declared once in points.go with a statement of
// what it counts; names are lower-case, dot-separated, most general first
// ("raft.failover", "logstore.recover.torn"). Fault kinds count under
// FaultFired and FaultEffect, which derive the name from the kind's name.
package coverage
