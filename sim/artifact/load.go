package artifact

import (
	"fmt"

	"github.com/felixsim/felixsim/sim/runner"
)

// LoadRun reads a plan file and returns the options that run it: its
// meta lines' topology and defects (an older plan without them gets the
// default topology sized to its nodes, and no defect), and its meta.
func LoadRun(planPath string) (runner.Options, Meta, error) {
	p, meta, err := ReadPlan(planPath)
	if err != nil {
		return runner.Options{}, Meta{}, err
	}
	o, err := optionsFor(p, meta)
	if err != nil {
		return runner.Options{}, Meta{}, fmt.Errorf("%s: %w", planPath, err)
	}
	o.PlanPath = planPath
	return o, meta, nil
}
