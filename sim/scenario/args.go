package scenario

import (
	"fmt"
	"strconv"
	"strings"
)

// args is one command's words after its name: flags are taken out by
// name, then the positional words remain.
type args struct {
	words []string
	e     error
}

// fail records the command's first argument error.
func (a *args) fail(format string, v ...any) {
	if a.e == nil {
		a.e = fmt.Errorf(format, v...)
	}
}

// err is the first argument error, or a flag no handler took.
func (a *args) err() error {
	if a.e != nil {
		return a.e
	}
	for _, w := range a.words {
		if strings.HasPrefix(w, "--") {
			return fmt.Errorf("unknown flag %s", w)
		}
	}
	return nil
}

// flag takes "--name value" (or "--name=value") out of the words.
func (a *args) flag(name string) (string, bool) {
	for i, w := range a.words {
		if w == "--"+name {
			if i+1 >= len(a.words) {
				a.fail("flag --%s needs a value", name)
				return "", false
			}
			v := a.words[i+1]
			a.words = append(a.words[:i:i], a.words[i+2:]...)
			return v, true
		}
		if v, ok := strings.CutPrefix(w, "--"+name+"="); ok {
			a.words = append(a.words[:i:i], a.words[i+1:]...)
			return v, true
		}
	}
	return "", false
}

// boolFlag takes "--name" out of the words.
func (a *args) boolFlag(name string) bool {
	for i, w := range a.words {
		if w == "--"+name {
			a.words = append(a.words[:i:i], a.words[i+1:]...)
			return true
		}
	}
	return false
}

// intFlag takes "--name N"; def when absent.
func (a *args) intFlag(name string, def int) int {
	v, ok := a.flag(name)
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		a.fail("flag --%s %q: want a count", name, v)
	}
	return n
}

// positional returns the remaining words, requiring between lo and hi of
// them (hi < 0: no upper bound); usage names them in the error.
func (a *args) positional(lo, hi int, usage string) []string {
	for _, w := range a.words {
		if strings.HasPrefix(w, "--") {
			a.fail("unknown flag %s (usage: %s)", w, usage)
			return nil
		}
	}
	if len(a.words) < lo || (hi >= 0 && len(a.words) > hi) {
		a.fail("%d arguments refused (usage: %s)", len(a.words), usage)
		return nil
	}
	return a.words
}

// parseUint reads a non-negative integer word.
func parseUint(what, s string) (uint64, error) {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%s %q: want a non-negative integer", what, s)
	}
	return n, nil
}

// durationUnits are the duration suffixes, longest first.
var durationUnits = []struct {
	suffix string
	ns     int64
}{{"ns", 1}, {"us", 1_000}, {"ms", 1_000_000}, {"s", 1_000_000_000}, {"m", 60_000_000_000}}

// DurationMaxNs bounds any duration a scenario names (an hour).
const DurationMaxNs = 3_600_000_000_000

// parseDurationNs reads "500ms", "5s", "+5s", "-2s" (sign allowed when signed).
func parseDurationNs(s string, signed bool) (int64, error) {
	body, sign := s, int64(1)
	if signed && (strings.HasPrefix(s, "+") || strings.HasPrefix(s, "-")) {
		if s[0] == '-' {
			sign = -1
		}
		body = s[1:]
	}
	for i := len(durationUnits) - 1; i >= 0; i-- {
		u := durationUnits[i]
		num, ok := strings.CutSuffix(body, u.suffix)
		if !ok {
			continue
		}
		if u.suffix == "s" && (strings.HasSuffix(num, "m") || strings.HasSuffix(num, "n") || strings.HasSuffix(num, "u")) {
			continue // "ms", "ns", "us" end in s too
		}
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil || n < 0 || n > DurationMaxNs/u.ns {
			break
		}
		return sign * n * u.ns, nil
	}
	want := "500ms, 5s, 1m"
	if signed {
		want = "+5s, -200ms"
	}
	return 0, fmt.Errorf("duration %q refused: want an integer and a unit (ns, us, ms, s, m) up to an hour, like %s", s, want)
}

// formatNs prints a simulated duration or time: whole units when exact,
// else seconds with nanosecond digits.
func formatNs(ns int64) string {
	switch {
	case ns%1_000_000_000 == 0:
		return fmt.Sprintf("%ds", ns/1_000_000_000)
	case ns%1_000_000 == 0:
		return fmt.Sprintf("%dms", ns/1_000_000)
	}
	return fmt.Sprintf("%d.%09ds", ns/1_000_000_000, ns%1_000_000_000)
}
