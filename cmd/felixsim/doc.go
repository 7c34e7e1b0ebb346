// Command felixsim is the command-line front of felixsim: `felixsim
// <command> [flags]`. Each subcommand parses its flags, calls library
// packages (tla, sim/...) and prints; no logic lives here. Exit codes:
// 0 pass, 1 a property was violated, 2 bad usage; a subcommand documents
// any other.
//
// cmd may import anything; nothing imports cmd. It is the one place that
// reads the wall clock (to report elapsed seconds).
package main
