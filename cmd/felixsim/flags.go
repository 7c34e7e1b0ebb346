package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// help is what `felixsim <command> --help` prints besides the flags.
type help struct {
	// usage is the synopsis after "usage: felixsim ".
	usage string
	// examples are paste-ready command lines, each with what it does.
	examples []string
	// exits says what each exit code means for this command.
	exits string
	// positional, when set, lets the command take arguments besides its
	// flags (and flags may follow them); fs.Args() holds them.
	positional bool
}

// write prints the full help for fs to w: synopsis, examples, flags, exit codes.
func (h help) write(w io.Writer, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: felixsim %s\n\n", h.usage)
	if len(h.examples) > 0 {
		fmt.Fprintln(w, "examples:")
		for _, e := range h.examples {
			fmt.Fprintf(w, "  %s\n", e)
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
func usageError(stderr io.Writer, name string, err error) int {
	msg := strings.ReplaceAll(err.Error(), "\n", "; ")
	fmt.Fprintf(stderr, "felixsim %s: %s (see 'felixsim %s --help')\n", name, msg, name)
	return exitUsage
}
