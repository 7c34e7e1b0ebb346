package node

import (
	"errors"
	"fmt"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/wire"
)

// AdminKind names an operator request to the metadata group.
type AdminKind uint8

// Operator request kinds; the zero value is invalid.
const (
	adminInvalid AdminKind = iota
	// AdminFinalize finalizes a fleet feature (AdminRequest.Feature).
	AdminFinalize
	// AdminStreamDelete deletes a live stream (AdminRequest.Namespace
	// and Stream); AdminStreamCreate creates a deleted one again, as its
	// next generation (see streamadmin.go).
	AdminStreamDelete
	AdminStreamCreate
	adminKindEnd
)

// String names the operator request kind.
func (k AdminKind) String() string {
	switch k {
	case AdminFinalize:
		return "finalize"
	case AdminStreamDelete:
		return "stream delete"
	case AdminStreamCreate:
		return "stream create"
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
	// Namespace and Stream name the stream of a stream create or delete.
	Namespace, Stream string
	// Generation, when not 0, is the generation a stream create or
	// delete acts on: a delete of that live generation, a create after
	// that deleted one. Any other incarnation refuses it, so a request
	// proposed twice (or late) never acts on a later incarnation.
	Generation uint32
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
	c, err := adminCommand(req)
	if err != nil {
		refuse("%v", err)
		return
	}
	g := n.raftGroups[0]
	if !g.isLeader {
		n.answer(client, req.ID, &wire.Error{Code: wire.CodeNotLeader, Message: fmt.Sprintf("node %d does not lead the metadata group", n.cfg.ID), LeaderHint: g.lead})
		return
	}
	n.propose(client, req.ID, g, c, nil)
	n.maybeProcess()
}

// adminCommand is the metadata command of a well-formed operator request.
func adminCommand(req *AdminRequest) (*command, error) {
	if req.Kind == AdminFinalize {
		if len(req.Feature) == 0 || len(req.Feature) > FeatureNameLenMax {
			return nil, fmt.Errorf("%s refused: feature name of %d bytes, want 1..%d", req.Kind, len(req.Feature), FeatureNameLenMax)
		}
		return &command{kind: cmdFinalize, feature: req.Feature}, nil
	}
	for _, name := range []string{req.Namespace, req.Stream} {
		if len(name) == 0 || len(name) > felix.NameLenMax {
			return nil, fmt.Errorf("%s refused: stream %q/%q: a name of %d bytes, want 1..%d", req.Kind, req.Namespace, req.Stream, len(name), felix.NameLenMax)
		}
	}
	return &command{kind: cmdStreamAdmin, scope: felix.Scope{Namespace: req.Namespace, Stream: req.Stream},
		generation: req.Generation, deleted: req.Kind == AdminStreamDelete}, nil
}

// ErrNotMetadataLeader marks an operator proposal made on a node that
// does not lead the metadata group.
var ErrNotMetadataLeader = errors.New("not the metadata group's leader")

// ProposeAdmin proposes an operator request on this node with no client
// to answer: an operator that watches the metadata for the request's
// effect (and proposes again if it does not come) uses it instead of
// HandleAdmin. It refuses a malformed request, and a node that does not
// lead the metadata group or has failed.
func (n *Node) ProposeAdmin(req *AdminRequest) error {
	if req.Kind <= adminInvalid || req.Kind >= adminKindEnd {
		return fmt.Errorf("operator request kind %d refused: unknown", req.Kind)
	}
	c, err := adminCommand(req)
	if err != nil {
		return err
	}
	g := n.raftGroups[0]
	if n.failed != nil || !g.isLeader {
		return fmt.Errorf("%s refused by node %d: %w", req.Kind, n.cfg.ID, ErrNotMetadataLeader)
	}
	n.proposeInternal(g, c)
	n.maybeProcess()
	return nil
}

// Metadata returns the metadata this node has applied; its slices are the
// node's: do not modify them.
func (n *Node) Metadata() Metadata { return *n.meta }

// MetadataApplied is the metadata group's index this node applied last.
func (n *Node) MetadataApplied() uint64 { return n.raftGroups[0].applied }

// Incarnation returns the stream incarnation shard group group has
// applied on this node, and whether the node hosts such a stream group.
func (n *Node) Incarnation(group uint64) (StreamIncarnation, bool) {
	g := n.raftGroup(group)
	if g == nil || g.id == MetaGroup {
		return StreamIncarnation{}, false
	}
	return g.incarnation, true
}
