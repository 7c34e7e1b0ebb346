package world

import (
	"fmt"
	"strings"
)

// Describe renders every option the world was built with, one per line, so
// a run can print what it derived next to its reproduce command.
func (w *World) Describe() string {
	var b strings.Builder
	c := &w.cfg
	fmt.Fprintf(&b, "seed %d\nnodes %d\n", c.Seed, len(c.Nodes))
	fmt.Fprintf(&b, "link %s\n", c.Link)
	for _, o := range c.Links {
		fmt.Fprintf(&b, "link %d->%d %s\n", o.From, o.To, o.Link)
	}
	for i, n := range c.Nodes {
		fmt.Fprintf(&b, "node %d name=%s exempt=%v clock_skew_ns=%d clock_drift_ppm=%d\n", i, n.Name, n.FaultExempt, n.ClockSkewNs, n.ClockDriftPpm)
	}
	return b.String()
}

// String renders the link's behaviour as key=value fields.
func (c LinkConfig) String() string {
	return fmt.Sprintf("latency_ns=[%d,%d] tail_ppm=%d tail_max_ns=%d loss_ppm=%d dup_ppm=%d reorder_ppm=%d reorder_delay_max_ns=%d",
		c.LatencyMinNs, c.LatencyMaxNs, c.LatencyTailPpm, c.LatencyTailMaxNs, c.LossPpm, c.DuplicatePpm, c.ReorderPpm, c.ReorderDelayMaxNs)
}
