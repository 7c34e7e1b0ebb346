// Package tla holds the FelixAtomicCommit TLA+ model (the .tla and .cfg
// files beside this package) and its Go mirror: the same variables, actions
// and invariants, explored breadth-first over state fingerprints with every
// invariant checked on every distinct state, so that the shortest
// counterexample is found and printed step by step. The mirror must reach
// exactly the state counts TLC reports for each config (tla/README.md);
// the tests assert it.
//
// Trace mode (trace*.go): TraceValidator checks a broker run's abstract
// trace (package modeltrace) step by step against the model's actions,
// refined where the broker is finer than the model (README.md, "Trace
// validation"), every field of every step recomputed or bounded (an
// apply's outcome and errors, retention points, a read's index, an
// append's term); a step no action explains is TraceNotInModel, and after
// every step the model's invariants are evaluated on the trace state (the
// read rules on what a read step saw, CommittedNeverLost on every
// acknowledged write), a break reported under the invariant's name. The
// states a trace visits are projected (tracestates.go) and compared with
// the bound of what a broker can show by the model's account
// (MCBrokerShape, brokerreach.go). Both modes
// model membership changes (reconfigure.go, traceconf.go): a broker's
// configuration is the one its applied changes give, and quorums count
// the deciding broker's voters only.
//
// Where package properties holds an invariant, the mirror converts its
// states to properties' neutral view and calls that same function.
//
// tla is on the simulated path: no wall clock, no randomness, no
// goroutines, no map order reaching output. It must not import cmd, sim,
// node, logstore or statemachine; it imports only properties and
// modeltrace (the abstract trace the trace validator reads).
package tla
