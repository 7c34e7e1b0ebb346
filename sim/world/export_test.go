package world

// This file lends the external tests (package world_test, which may import
// sim/faultplan and sim/world/worldtest) the few internals they read.

// NodeFS is node id's faulted filesystem, the one its processes are given.
func (w *World) NodeFS(id int) *FaultFS { return w.node(id).fs }

// MemSize is the size of name on mem (0 when it cannot be read).
var MemSize = memSize
