package runner

import (
	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/workload"
)

// viewTables reads one side of one scope for StoreMatchesMemory, in
// place: a node's view of a followed store's rows or of a shard
// (node.ScopeView), its state rows and consumer groups in properties'
// form.
type viewTables struct {
	v  node.ScopeView
	sc felix.Scope
}

func (t viewTables) Window() (uint64, uint64)                 { return t.v.Window() }
func (t viewTables) LogLen() int                              { return t.v.LogLen() }
func (t viewTables) LogAt(offset uint64) (felix.Record, bool) { return t.v.LogAt(offset) }
func (t viewTables) LogRows() []felix.Entry                   { return t.v.LogRows() }
func (t viewTables) StateLen() int                            { return t.v.StateLen() }
func (t viewTables) GroupsLen() int                           { return t.v.GroupsLen() }

func (t viewTables) StateAt(key string) (properties.StoreSlot, bool) {
	v, version, ok := t.v.StateGet(key)
	return properties.StoreSlot{Key: key, Value: v, Version: version}, ok
}

func (t viewTables) GroupAt(name string) (properties.GroupView, bool) {
	g, ok := t.v.GroupGet(name)
	return workload.GroupViewOf(&g), ok
}

func (t viewTables) StateRows() []properties.StoreSlot {
	var out []properties.StoreSlot
	for _, kv := range t.v.StateRows() {
		out = append(out, properties.StoreSlot{Key: kv.Key, Value: kv.Value, Version: kv.Version})
	}
	return out
}

func (t viewTables) GroupRows() []properties.GroupView {
	return workload.ScopeGroupsOf(t.sc, t.v.GroupRows()).Groups
}
