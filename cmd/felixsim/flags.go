package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/felixsim/felixsim/sim/runner"
)

// help is what `felixsim <command> --help` prints besides the flags.
type help struct {
	// usage is the synopsis after "usage: felixsim ".
	usage string
	// examples are paste-ready command lines, each with what it does and
	// its exit code; TestHelpExamplesRun runs them all, as shown.
	examples []example
	// exits says what each exit code means for this command.
	exits string
	// positional, when set, lets the command take arguments besides its
	// flags (and flags may follow them); fs.Args() holds them.
	positional bool
}

// example is one paste-ready command line of a command's help. A
// command's examples run in order from the root of a felixsim checkout
// (some name its testdata; later ones may use files earlier ones wrote),
// with felixsim on the PATH (make install).
type example struct {
	// after is a command line to run first, when cmd needs its output.
	after string
	// cmd is the command line; does says what it shows.
	cmd, does string
	// exit is the exit code cmd ends with.
	exit int
}

// exampleIndent is the column an example's comment starts at.
const exampleIndent = 56

// write prints the full help for fs to w: synopsis, examples, flags, exit codes.
func (h help) write(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: felixsim %s\n\n", h.usage)
	if len(h.examples) > 0 {
		fmt.Fprintln(w, "examples (in order, from a felixsim checkout's root; [exit code]):")
		for _, e := range h.examples {
			if e.after != "" {
				fmt.Fprintf(w, "  %s\n", e.after)
			}
			fmt.Fprintf(w, "  %-*s # %s [exit %d]\n", exampleIndent, e.cmd, e.does, e.exit)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "flags:")
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
	if h.exits != "" {
		fmt.Fprintf(w, "\nexit codes: %s\n", h.exits)
	}
}

// parseFlags parses args into fs. With -h or --help it prints the help to
// stdout and returns (0, true). A bad flag or a stray argument prints one
// line naming the problem and a pointer to --help, and returns (2, true).
// Otherwise it returns (0, false) and the command goes on.
func parseFlags(fs *flag.FlagSet, args []string, h help, stdout, stderr io.Writer) (code int, done bool) {
	fs.SetOutput(io.Discard) // the flag package would print the whole flag list on an error
	fs.Usage = func() {}
	err := fs.Parse(args)
	var rest []string
	for err == nil && h.positional && fs.NArg() > 0 {
		rest = append(rest, fs.Arg(0))
		err = fs.Parse(fs.Args()[1:])
	}
	if err == nil && h.positional {
		// Parse once more over the positionals alone (after "--", so none
		// is read as a flag) to leave them in fs.Args().
		err = fs.Parse(append([]string{"--"}, rest...))
	}
	switch {
	case errors.Is(err, flag.ErrHelp):
		h.write(stdout, fs)
		return exitPass, true
	case err != nil:
		return usageError(stderr, fs.Name(), err), true
	case !h.positional && fs.NArg() > 0:
		return usageError(stderr, fs.Name(), fmt.Errorf("unexpected argument %q", fs.Arg(0))), true
	}
	return exitPass, false
}

// usageError prints err as one line for command name, with a pointer to
// its --help, and returns the usage exit code.
// runError reports the error of a command that runs a simulation: a run
// that lost its evidence (runner.ErrNoVerdict) is no verdict, exit 3;
// anything else refused the options before running, a usage error.
func runError(stderr io.Writer, name string, err error) int {
	if errors.Is(err, runner.ErrNoVerdict) {
		fmt.Fprintf(stderr, "felixsim %s: %s (exit %d)\n", name, strings.ReplaceAll(err.Error(), "\n", "; "), exitIncomplete)
		return exitIncomplete
	}
	return usageError(stderr, name, err)
}

func usageError(stderr io.Writer, name string, err error) int {
	msg := strings.ReplaceAll(err.Error(), "\n", "; ")
	fmt.Fprintf(stderr, "felixsim %s: %s (see 'felixsim %s --help')\n", name, msg, name)
	return exitUsage
}

// bounds registers numeric flags with their allowed range: the range is
// stated at the end of each flag's usage ("(1..7)"), so --help gives it,
// and check refuses a value outside it naming that one flag. A range the
// flags share (streams x shards) is checked by the command after.
type bounds struct {
	fs     *flag.FlagSet
	checks []func() error
}

func newBounds(fs *flag.FlagSet) *bounds { return &bounds{fs: fs} }

// Int registers an int flag allowed in [lo, hi].
func (b *bounds) Int(name string, def, lo, hi int, usage string) *int {
	p := b.fs.Int(name, def, fmt.Sprintf("%s (%d..%d)", usage, lo, hi))
	b.add(name, func() (bool, string) { return *p >= lo && *p <= hi, fmt.Sprint(*p) }, fmt.Sprintf("%d..%d", lo, hi))
	return p
}

// Uint64 registers a uint64 flag allowed in [lo, hi].
func (b *bounds) Uint64(name string, def, lo, hi uint64, usage string) *uint64 {
	p := b.fs.Uint64(name, def, fmt.Sprintf("%s (%d..%d)", usage, lo, hi))
	b.add(name, func() (bool, string) { return *p >= lo && *p <= hi, fmt.Sprint(*p) }, fmt.Sprintf("%d..%d", lo, hi))
	return p
}

// Float64 registers a float64 flag allowed in [lo, hi].
func (b *bounds) Float64(name string, def, lo, hi float64, usage string) *float64 {
	p := b.fs.Float64(name, def, fmt.Sprintf("%s (%g..%g)", usage, lo, hi))
	b.add(name, func() (bool, string) { return *p >= lo && *p <= hi, fmt.Sprint(*p) }, fmt.Sprintf("%g..%g", lo, hi))
	return p
}

// Duration registers a duration flag allowed in [lo, hi].
func (b *bounds) Duration(name string, def, lo, hi time.Duration, usage string) *time.Duration {
	r := fmt.Sprintf("%s..%s", shortDuration(lo), shortDuration(hi))
	p := b.fs.Duration(name, def, fmt.Sprintf("%s (%s)", usage, r))
	b.add(name, func() (bool, string) { return *p >= lo && *p <= hi, p.String() }, r)
	return p
}

func (b *bounds) add(name string, in func() (bool, string), allowed string) {
	b.checks = append(b.checks, func() error {
		if ok, v := in(); !ok {
			return fmt.Errorf("--%s %s refused: want %s", name, v, allowed)
		}
		return nil
	})
}

// check refuses the first flag (in registration order) outside its range.
func (b *bounds) check() error {
	for _, c := range b.checks {
		if err := c(); err != nil {
			return err
		}
	}
	return nil
}

// shortDuration prints d as a duration flag reads it back, in its largest
// exact unit ("1ms", "10000h").
func shortDuration(d time.Duration) string {
	if d == 0 {
		return "0s"
	}
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Hour, "h"}, {time.Minute, "m"}, {time.Second, "s"}, {time.Millisecond, "ms"}, {time.Microsecond, "us"}} {
		if d != 0 && d%u.d == 0 {
			return fmt.Sprintf("%d%s", d/u.d, u.name)
		}
	}
	return fmt.Sprintf("%dns", int64(d))
}

// jobsMax caps the worker processes a command starts at once.
const jobsMax = 1024

// durationMax caps every duration flag: far beyond any run anyone waits
// for, far inside the nanosecond arithmetic's int64; a plan file's lines
// have the same cap (runner.DurationNsMax).
const durationMax = time.Duration(runner.DurationNsMax)
