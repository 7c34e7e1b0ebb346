package runner

import (
	"testing"

	"github.com/felixsim/felixsim/node"
	"github.com/felixsim/felixsim/tla"
)

// TestTraceModelScopeCap: the trace model's scope cap (tla may not
// import node) is the broker's.
func TestTraceModelScopeCap(t *testing.T) {
	if tla.ScopesPerGroupMax != node.ScopesPerRaftGroupMax {
		t.Fatalf("tla.ScopesPerGroupMax %d, node.ScopesPerRaftGroupMax %d", tla.ScopesPerGroupMax, node.ScopesPerRaftGroupMax)
	}
}
