// Package timeline draws one run as a self-contained HTML page (no
// network, no external script or style): on the first screen the plot,
// with the brokers as rows (their leadership terms, down and paused
// spans, the faults that struck them), the outbox relay, the faults
// aimed at no one node, and the clients' operations over simulated
// time; beside it the violated invariants, each with its time in
// seconds and the operations that show it. The page's script zooms and pans the time axis (wheel, drag,
// buttons, keys) and zooms to a violation when it is chosen.
//
// One numbering names brokers everywhere (numbering.go): broker N is the
// world's node N-1, whatever raft id it runs under after a replaced
// disk; fault labels say times in seconds. A long run's operations are
// counted per bin and kept one by one only near the violating ones
// (ops.go): a 600 s run's page is about 0.5 MB (its faults and
// leadership terms grow with the run, up to their caps).
//
// Build makes the page's model from a run's Result (pure, tested on its
// own); Write renders it. timeline imports sim/world, sim/faultplan,
// sim/runner, sim/verdict and properties; it must not import cmd. sim/detcheck/layers.go holds the
// table.
package timeline
