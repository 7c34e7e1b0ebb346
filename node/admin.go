package node

import (
	"fmt"

	"github.com/felixsim/felixsim/wire"
)

// AdminKind names an operator request to the metadata group.
type AdminKind uint8

// Operator request kinds; the zero value is invalid.
const (
	adminInvalid AdminKind = iota
	// AdminFinalize finalizes a fleet feature (AdminRequest.Feature).
	AdminFinalize
	adminKindEnd
)

// String names the operator request kind.
func (k AdminKind) String() string {
	switch k {
	case AdminFinalize:
		return "finalize"
	}
	return fmt.Sprintf("AdminKind(%d)", uint8(k))
}

// AdminRequest is one operator request: an id the answer echoes and the
// operation. It is answered like a client write, through Host.SendAnswer:
// Acked once the metadata group applied it, AdminRefused with the reason,
// NotLeader with a hint from a broker that does not lead the group, or
// nothing if the proposal was lost (the operator retries).
type AdminRequest struct {
	ID      uint64
	Kind    AdminKind
	Feature string
}

// HandleAdmin serves one operator request from endpoint client.
func (n *Node) HandleAdmin(client uint64, req *AdminRequest) {
	if n.failed != nil {
		return
	}
	refuse := func(format string, args ...any) {
		n.answer(client, req.ID, &wire.Error{Code: wire.CodeInvalidRequest, Message: truncate(fmt.Sprintf(format, args...))})
	}
	if req.Kind <= adminInvalid || req.Kind >= adminKindEnd {
		refuse("operator request kind %d refused: unknown", req.Kind)
		return
	}
	if len(req.Feature) == 0 || len(req.Feature) > FeatureNameLenMax {
		refuse("%s refused: feature name of %d bytes, want 1..%d", req.Kind, len(req.Feature), FeatureNameLenMax)
		return
	}
	g := n.raftGroups[0]
	if !g.isLeader {
		n.answer(client, req.ID, &wire.Error{Code: wire.CodeNotLeader, Message: fmt.Sprintf("node %d does not lead the metadata group", n.cfg.ID), LeaderHint: g.lead})
		return
	}
	n.propose(client, req.ID, g, &command{kind: cmdFinalize, feature: req.Feature}, nil)
	n.maybeProcess()
}
