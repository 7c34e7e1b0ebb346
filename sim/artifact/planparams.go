package artifact

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/felixsim/felixsim/sim/faultplan"
	"github.com/felixsim/felixsim/sim/runner"
	"github.com/felixsim/felixsim/sim/workload"
)

// checkParamLines refuses a plan's first `param NAME VALUE` line the run
// would refuse, naming the line: a name the workload does not know, a
// value out of the workload's range, or out of its flag's (clients as
// --clients, start_spread_ns as --client-start-spread). faultplan.ParsePlan
// has read the lines' grammar; the workload's ranges are not its to know.
func checkParamLines(text string) error {
	var params []faultplan.Param
	var lines []int
	for i, raw := range strings.Split(text, "\n") {
		fields := strings.Fields(raw)
		if len(fields) != 3 || fields[0] != "param" {
			continue
		}
		v, err := strconv.ParseInt(fields[2], 10, 64)
		if err != nil {
			continue // ParsePlan refused it already
		}
		q := faultplan.Param{Name: fields[1], Value: v}
		if err := checkParam(q); err != nil {
			return fmt.Errorf("plan line %d: %w", i+1, err)
		}
		params, lines = append(params, q), append(lines, i+1)
	}
	if len(params) == 0 {
		return nil
	}
	if _, err := paramBase().WithParams(params); err != nil {
		return fmt.Errorf("plan lines %d..%d (its params, together): %w", lines[0], lines[len(lines)-1], err)
	}
	return nil
}

// checkParam refuses one workload parameter, alone over the defaults.
func checkParam(q faultplan.Param) error {
	switch {
	case q.Name == workload.ParamClients && (q.Value < runner.ClientsMin || q.Value > runner.ClientsMax):
		return fmt.Errorf("param %s %d refused: want %d..%d, as --clients", q.Name, q.Value, runner.ClientsMin, runner.ClientsMax)
	case q.Name == workload.ParamStartSpreadNs && (q.Value < 0 || q.Value > runner.DurationNsMax):
		return fmt.Errorf("param %s %d refused: want 0..%d, as --client-start-spread", q.Name, q.Value, int64(runner.DurationNsMax))
	}
	_, err := paramBase().WithParams([]faultplan.Param{q})
	return err
}

// paramBase is a default run's workload, which a plan's params change.
func paramBase() workload.Config {
	return workload.Config{Brokers: runner.BrokersDefault, FirstSimID: runner.BrokersDefault, Clients: runner.ClientsDefault,
		Namespace: runner.Namespace, Streams: []string{runner.StreamPrefix}, Shards: runner.ShardsDefault}
}
