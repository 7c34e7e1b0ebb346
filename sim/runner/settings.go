package runner

import (
	"fmt"
	"strings"
)

// Setting is one option that decides a run's outcome, named by the
// `felixsim run` flag that sets it and valued as that flag reads it back.
type Setting struct {
	Flag  string
	Value string
}

// Settings lists every option of o that decides a run's outcome, defaults
// filled in, in one fixed order: what a saved plan must record so that a
// replay runs the same run, and what a command replaying a plan compares
// its own flags with. (Seed, duration and the workload's shape are the
// plan's own lines; they are listed here too, so one table names them all.)
func (o Options) Settings() []Setting {
	d := o.withDefaults()
	return []Setting{
		{"seed", fmt.Sprint(d.Seed)},
		{"nodes", fmt.Sprint(d.Brokers)},
		{"streams", fmt.Sprint(d.Streams)},
		{"shards", fmt.Sprint(d.Shards)},
		{"duration", FormatDurationNs(d.DurationNs)},
		{"faults", d.Faults.String()},
		{"defects", d.DefectList()},
		{"clients", fmt.Sprint(d.Clients)},
		{"client-start-spread", FormatDurationNs(d.ClientStartSpreadNs)},
		{"fault-gap", FormatDurationNs(d.FaultGapMeanNs)},
		{"liveness-budget", FormatDurationNs(d.LivenessBudgetNs)},
		{"quiesce-budget", FormatDurationNs(d.QuiesceBudgetNs)},
		{"change-liveness-budget", FormatDurationNs(d.ChangeLivenessBudgetNs)},
		{"validate-trace", fmt.Sprint(d.ValidateTrace)},
	}
}

// SettingConflict is an option a command was given that differs from the
// one a saved run records.
type SettingConflict struct {
	Flag, Given, Recorded string
}

// ConflictingSettings compares the settings of given with those of
// recorded, for the flags that were given (set reports whether a flag was
// given on the command line), and lists each that differs, in Settings
// order.
func ConflictingSettings(given, recorded Options, set func(flag string) bool) []SettingConflict {
	g, r := given.Settings(), recorded.Settings()
	var out []SettingConflict
	for i := range g {
		if g[i].Flag != r[i].Flag {
			panic(fmt.Sprintf("runner: settings out of order: %q vs %q", g[i].Flag, r[i].Flag))
		}
		if set(g[i].Flag) && g[i].Value != r[i].Value {
			out = append(out, SettingConflict{Flag: g[i].Flag, Given: g[i].Value, Recorded: r[i].Value})
		}
	}
	return out
}

// ConflictError refuses a command's flags that differ from what the saved
// run at source records, naming each; nil when there is none.
func ConflictError(source string, cs []SettingConflict) error {
	if len(cs) == 0 {
		return nil
	}
	given := make([]string, len(cs))
	recorded := make([]string, len(cs))
	for i, c := range cs {
		given[i] = fmt.Sprintf("--%s %s", c.Flag, c.Given)
		recorded[i] = fmt.Sprintf("%s %s", c.Flag, c.Recorded)
	}
	return fmt.Errorf("%s refused: %s records %s (a saved plan describes its whole run: leave these flags out, or run the seed afresh without the plan)",
		strings.Join(given, ", "), source, strings.Join(recorded, ", "))
}
