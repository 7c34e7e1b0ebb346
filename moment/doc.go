// Package moment names the points of a broker's work that matter for crash
// recovery (a snapshot installed, a consumer-group ack durable, a log
// compacted, a membership change in flight, client proposals held) or
// for timing (a leader's reads confirmed): a broker reports each to its host
// once the store commit of the round that reached it has returned, and
// the simulator may strike the broker right there (a targeted fault).
//
// It is a leaf beside felix: it imports no felixsim package, so node
// reports moments without importing anything of the simulator, and
// sim/simapi, sim/world and sim/faultplan speak of the same moments.
package moment
