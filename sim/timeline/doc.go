// Package timeline draws one run as a self-contained HTML page (no
// network, no external script or style): the brokers as lanes with their
// leadership terms and their down and paused spans; faults (partitions,
// kills, pauses, clock jumps, disk faults) as bands; client operations as
// bars over simulated time; the violating operations highlighted, with the
// explanation at the top. Build makes the page's model from a run's
// Result (pure, tested on its own); Write renders it.
//
// timeline imports sim, sim/runner and properties; it must not import
// cmd. sim/detcheck/layers.go holds the table.
package timeline
