package workload

import (
	"fmt"

	"github.com/felixsim/felixsim/sim/faultplan"
)

// Parameter names under which a plan records the workload's shape.
const (
	ParamArrivals        = "arrivals"
	ParamCallTimeoutNs   = "call_timeout_ns"
	ParamClients         = "clients"
	ParamEntityKeys      = "entity_keys"
	ParamInFlightMax     = "in_flight_max"
	ParamOpGapMeanNs     = "op_gap_mean_ns"
	ParamRetryUnknownPct = "retry_unknown_pct"
	ParamStartSpreadNs   = "start_spread_ns"
	ParamStickyClients   = "sticky_clients"
)

// paramFields maps each parameter to its Config field; sorted by name, as
// a plan keeps its parameters.
func paramFields(c *Config) []struct {
	name string
	get  func() int64
	set  func(int64)
} {
	return []struct {
		name string
		get  func() int64
		set  func(int64)
	}{
		{ParamArrivals, func() int64 { return int64(c.Arrivals) }, func(v int64) { c.Arrivals = int(v) }},
		{ParamCallTimeoutNs, func() int64 { return c.CallTimeoutNs }, func(v int64) { c.CallTimeoutNs = v }},
		{ParamClients, func() int64 { return int64(c.Clients) }, func(v int64) { c.Clients = int(v) }},
		{ParamEntityKeys, func() int64 { return int64(c.EntityKeys) }, func(v int64) { c.EntityKeys = int(v) }},
		{ParamInFlightMax, func() int64 { return int64(c.InFlightMax) }, func(v int64) { c.InFlightMax = int(v) }},
		{ParamOpGapMeanNs, func() int64 { return c.OpGapMeanNs }, func(v int64) { c.OpGapMeanNs = v }},
		{ParamRetryUnknownPct, func() int64 { return int64(c.RetryUnknownPct) }, func(v int64) { c.RetryUnknownPct = int(v) }},
		{ParamStartSpreadNs, func() int64 { return c.StartSpreadNs }, func(v int64) { c.StartSpreadNs = v }},
		{ParamStickyClients, func() int64 { return int64(c.StickyClients) }, func(v int64) { c.StickyClients = int(v) }},
	}
}

// Params renders the workload's shape (defaults filled in) as plan
// parameters, sorted by name; WithParams reads them back.
func (c Config) Params() []faultplan.Param {
	d := c.withDefaults()
	var out []faultplan.Param
	for _, f := range paramFields(&d) {
		out = append(out, faultplan.Param{Name: f.name, Value: f.get()})
	}
	return out
}

// paramMax bounds every parameter so that a hand-edited plan cannot ask
// for an absurd workload.
const paramMax = 1 << 40

// WithParams returns c with the named parameters of a plan applied; an
// unknown name, or a value out of range, is refused.
func (c Config) WithParams(params []faultplan.Param) (Config, error) {
	out := c
	fields := paramFields(&out)
	for _, p := range params {
		found := false
		for _, f := range fields {
			if f.name == p.Name {
				if p.Value < -1 || p.Value > paramMax {
					return Config{}, fmt.Errorf("workload param %s=%d refused: outside [-1, %d]", p.Name, p.Value, int64(paramMax))
				}
				f.set(p.Value)
				found = true
			}
		}
		if !found {
			return Config{}, fmt.Errorf("workload param %q refused: not one of %s, %s, %s, %s, %s, %s, %s, %s, %s", p.Name, ParamArrivals,
				ParamCallTimeoutNs, ParamClients, ParamEntityKeys, ParamInFlightMax, ParamOpGapMeanNs, ParamRetryUnknownPct, ParamStartSpreadNs, ParamStickyClients)
		}
	}
	d := out.withDefaults()
	if err := d.validate(); err != nil {
		return Config{}, err
	}
	return out, nil
}
