package node

import (
	"errors"
	"fmt"
	"strings"

	"github.com/felixsim/felixsim/statemachine"
)

// FleetFeature is a fleet feature: behaviour every broker must support
// before an operator may finalize it, since replicas gate on it alike.
type FleetFeature struct {
	Name string
	// VersionMin is the first software version that supports the feature.
	VersionMin uint32
}

// FleetFeatures are the features a cluster may finalize, in name order.
var FleetFeatures = []FleetFeature{
	{Name: FeatureAtomicCommit, VersionMin: AtomicCommitVersionMin},
}

// AtomicCommitVersionMin is the first broker version that applies commit
// records whole; an older broker would drop their state operations.
const AtomicCommitVersionMin = 2

// versionReportTicks is how often a node whose version the metadata group
// does not yet record proposes it again (a proposal may be dropped with a
// leadership change), and how often a shard leader re-proposes a finalized
// feature's marker its group has not applied yet.
const versionReportTicks = 20

// ErrFinalizeRefused marks a finalize the metadata group refused.
var ErrFinalizeRefused = errors.New("finalize refused")

// ErrVersionTooOld marks a broker that runs a software version older than
// a feature its cluster has finalized: it must not start.
var ErrVersionTooOld = errors.New("broker version too old for the finalized fleet features")

// errUnknownFeature marks a finalize naming no fleet feature.
var errUnknownFeature = errors.New("no such fleet feature")

// featureOf returns the fleet feature named name.
func featureOf(name string) (FleetFeature, bool) {
	for _, f := range FleetFeatures {
		if f.Name == name {
			return f, true
		}
	}
	return FleetFeature{}, false
}

// checkFinalize refuses to finalize feature unless every peer reports a
// version that supports it; the refusal names the brokers that do not.
func (m *Metadata) checkFinalize(feature string, peers []uint64) error {
	f, ok := featureOf(feature)
	if !ok {
		return fmt.Errorf("%w: %w: %q", ErrFinalizeRefused, errUnknownFeature, feature)
	}
	var old []string
	for _, p := range peers {
		v := m.VersionOf(p)
		if v < f.VersionMin {
			old = append(old, fmt.Sprintf("broker %d (version %d)", p, v))
		}
	}
	if len(old) > 0 {
		return fmt.Errorf("%w: %s needs version %d on every broker, and these run older: %s",
			ErrFinalizeRefused, feature, f.VersionMin, strings.Join(old, ", "))
	}
	return nil
}

// VersionOf is the version node last reported, or 0 if it reported none.
func (m *Metadata) VersionOf(node uint64) uint32 {
	for _, v := range m.Versions {
		if v.Node == node {
			return v.Version
		}
	}
	return 0
}

// checkVersionRuns refuses a broker whose version is older than a feature
// in finalized needs.
func checkVersionRuns(id uint64, version uint32, finalized []string) error {
	for _, name := range finalized {
		if f, ok := featureOf(name); ok && version < f.VersionMin {
			return fmt.Errorf("%w: node %d runs version %d, but finalized feature %s needs version %d or newer (a downgrade after finalization is refused)",
				ErrVersionTooOld, id, version, name, f.VersionMin)
		}
	}
	return nil
}

// featuresOf is the shard-apply form of a finalized feature list.
func featuresOf(finalized []string) statemachine.Features {
	for _, f := range finalized {
		if f == FeatureAtomicCommit {
			return statemachine.Features{AtomicCommitFinalized: true}
		}
	}
	return statemachine.Features{}
}

// softwareVersion is the version this broker runs.
func (n *Node) softwareVersion() uint32 {
	if n.cfg.SoftwareVersion != 0 {
		return n.cfg.SoftwareVersion
	}
	return n.cfg.Bootstrap.SoftwareVersion
}

// tickFleet reports this broker's version to the metadata group while the
// group records another, and has each shard group this node leads carry a
// finalized feature into its own log while the group has not applied it:
// every replica then gates commits at the same log position.
func (n *Node) tickFleet() {
	if n.ticks%versionReportTicks != 0 {
		return
	}
	meta := n.raftGroups[0]
	if v := n.softwareVersion(); n.meta.VersionOf(n.cfg.ID) != v && meta.lead != 0 {
		n.proposeInternal(meta, &command{kind: cmdSetVersion, node: n.cfg.ID, version: v})
	}
	n.tickIncarnations()
	if !n.meta.IsFinalized(FeatureAtomicCommit) {
		return
	}
	for _, g := range n.raftGroups[1:] {
		if g.isLeader && !g.features.AtomicCommitFinalized {
			n.proposeInternal(g, &command{kind: cmdFeature, feature: FeatureAtomicCommit})
		}
	}
}

// applyFeature applies a finalized feature's marker in shard group g. A
// broker too old for the feature fail-stops rather than apply commits it
// cannot apply whole (the EarlyFinalize defect applies on).
func (n *Node) applyFeature(g *raftGroup, c *command) {
	if err := n.checkVersions([]string{c.feature}); err != nil {
		n.fail(fmt.Errorf("group %d applies the %s marker: %w", g.id, c.feature, err))
		return
	}
	if c.feature == FeatureAtomicCommit && !g.features.AtomicCommitFinalized {
		g.features.AtomicCommitFinalized = true
		g.featuresIndex = g.applied // applyEntry has advanced it to the marker's index
	}
}

// Snapshot data of a stream shard group starts with a magic byte and a
// features byte: a snapshot sent to a follower (groupSnapshotMagic, then
// the scopes) and a local compaction point (compactionMagic, nothing
// more) both say which fleet features the group's log had applied at the
// snapshot's index, because the markers before it are gone from the log.
const (
	compactionMagic            = 0xFE
	featureAtomicCommitFlag    = 1 << 0
	snapshotFeatureBytesHeader = 2
)

// featuresAt is the features byte for a snapshot of g at index: set when
// g's log had finalized atomic_commit at or before index (featuresIndex 0
// with the feature set: the bootstrap's).
func featuresAt(g *raftGroup, index uint64) byte {
	if g.features.AtomicCommitFinalized && g.featuresIndex <= index {
		return featureAtomicCommitFlag
	}
	return 0
}

// restoreSnapshotFeatures applies the features byte of g's snapshot at
// index: a feature finalized by then is finalized from index on.
func restoreSnapshotFeatures(g *raftGroup, data []byte, index uint64) error {
	finalized, err := snapshotFeatures(data)
	if err != nil {
		return fmt.Errorf("group %d snapshot at index %d: %w", g.id, index, err)
	}
	if finalized && !g.features.AtomicCommitFinalized {
		g.features.AtomicCommitFinalized, g.featuresIndex = true, index
	}
	return nil
}

// snapshotFeatures reads the features byte of a stream shard group's
// snapshot data (either magic); data without one (the bootstrap
// snapshot) says nothing.
func snapshotFeatures(data []byte) (finalized bool, err error) {
	if len(data) == 0 {
		return false, nil
	}
	if len(data) < snapshotFeatureBytesHeader || (data[0] != groupSnapshotMagic && data[0] != compactionMagic) {
		return false, fmt.Errorf("snapshot data of %d bytes opens with %#x, neither a group snapshot nor a compaction point", len(data), data[0])
	}
	if f := data[1]; f&^featureAtomicCommitFlag != 0 {
		return false, fmt.Errorf("snapshot features byte %#x names unknown features", f)
	}
	return data[1]&featureAtomicCommitFlag != 0, nil
}
