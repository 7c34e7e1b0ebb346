// Command felixsim is the command-line front of felixsim: `felixsim
// <command> [flags]`. Each subcommand parses its flags, calls library
// packages (tla, sim/...) and prints; no logic lives here. Exit codes
// (main.go) follow the family of the failed invariants in properties'
// registry: 0 pass, 1 a safety invariant violated, 2 bad usage, 3 no
// verdict (a crash, or an exploration that could not finish), 4 only
// liveness invariants violated. Every subcommand has --help with
// examples, and refuses bad usage in one line (flags.go).
//
// cmd may import anything; nothing imports cmd. Besides sim/sweep (which
// drives worker processes outside the simulated path) it is the one place
// that reads the wall clock (to report elapsed seconds).
package main
