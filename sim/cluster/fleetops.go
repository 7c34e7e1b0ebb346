package cluster

import (
	"github.com/felixsim/felixsim/coverage"
	"github.com/felixsim/felixsim/node"
)

// A rolling upgrade as a plan's operator actions (world.FleetOperator): an
// upgrade fault restarts one broker at UpgradeVersion, a finalize fault
// asks the metadata group to finalize atomic_commit, which it refuses
// while a broker reports an older version; the operator asks again every
// StreamProposeRetryNs until it is finalized. A run whose plan holds such
// actions boots its brokers at UpgradeVersion-1, the feature not
// finalized (see runner), and FinishUpgrade completes the upgrade when
// the faults heal.

// UpgradeVersion is the version a plan's rolling upgrade goes to: the
// first that supports atomic_commit.
const UpgradeVersion = node.AtomicCommitVersionMin

// fleetOps is the operator's rolling-upgrade work in progress.
type fleetOps struct {
	armed bool
	// upgrades are broker slots whose new version the metadata group has
	// not recorded yet, with the effect to count when it does.
	upgrades []pendingUpgrade
	// finalizing is set while a finalize is asked for; finalizeEffects
	// are counted once it is finalized (when a proposal of the
	// operator's made it).
	finalizing      bool
	finalizeEffects []func()
	proposedNs      int64
}

type pendingUpgrade struct {
	slot   int
	effect func()
}

// pendingUpgradesMax caps the upgrades awaiting their version's record;
// more are carried out but their effect is not counted.
const pendingUpgradesMax = 64

// UpgradeBroker implements world.FleetOperator: broker slot simID restarts
// at UpgradeVersion after downNs unless it runs it already.
func (c *Cluster) UpgradeBroker(simID int, downNs int64, effect func()) {
	if simID < 0 || simID >= c.cfg.Brokers || c.versions[simID] >= UpgradeVersion {
		return
	}
	c.Upgrade(c.IdentityOf(simID), UpgradeVersion, downNs)
	c.cfg.Counts.Add(coverage.FleetUpgradeStep)
	if len(c.fleet.upgrades) < pendingUpgradesMax {
		c.fleet.upgrades = append(c.fleet.upgrades, pendingUpgrade{slot: simID, effect: effect})
	}
	c.armFleet()
}

// Finalize implements world.FleetOperator.
func (c *Cluster) Finalize(effect func()) {
	c.fleet.finalizing = true
	if len(c.fleet.finalizeEffects) < pendingUpgradesMax {
		c.fleet.finalizeEffects = append(c.fleet.finalizeEffects, effect)
	}
	c.armFleet()
}

// FinishUpgrade completes a rolling upgrade as the faults heal: every
// broker slot still older than UpgradeVersion restarts at it, and the
// feature is asked to be finalized.
func (c *Cluster) FinishUpgrade(downNs int64) {
	for i := 0; i < c.cfg.Brokers; i++ {
		if c.versions[i] < UpgradeVersion {
			c.Upgrade(c.IdentityOf(i), UpgradeVersion, downNs)
		}
	}
	c.fleet.finalizing = true
	c.armFleet()
}

func (c *Cluster) armFleet() {
	if !c.fleet.armed {
		c.fleet.armed = true
		c.World.At(c.World.NowNs()+OperatorStepNs, 0, c.fleetStep)
	}
}

// fleetStep counts the upgrades the metadata records now and steps a
// pending finalize; it re-arms while work is pending.
func (c *Cluster) fleetStep() {
	f := &c.fleet
	f.armed = false
	md, ok := c.freshestMetadata()
	if !ok {
		c.armFleet()
		return
	}
	keep := f.upgrades[:0]
	for _, u := range f.upgrades {
		if md.VersionOf(c.IdentityOf(u.slot)) >= UpgradeVersion {
			u.effect()
			continue
		}
		keep = append(keep, u)
	}
	f.upgrades = keep
	if f.finalizing {
		c.stepFinalize(md)
	}
	if len(f.upgrades) > 0 || f.finalizing {
		c.armFleet()
	}
}

// stepFinalize proposes the finalize again unless it is finalized.
func (c *Cluster) stepFinalize(md node.Metadata) {
	f := &c.fleet
	if md.IsFinalized(node.FeatureAtomicCommit) {
		if f.proposedNs != 0 {
			for _, e := range f.finalizeEffects {
				e()
			}
			c.cfg.Counts.Add(coverage.FleetFinalized)
		}
		f.finalizing, f.finalizeEffects = false, nil
		return
	}
	now := c.World.NowNs()
	if f.proposedNs != 0 && now-f.proposedNs < StreamProposeRetryNs {
		return
	}
	lead, ok := c.Leader(node.MetaGroup)
	if !ok {
		return
	}
	if err := c.Node(lead).ProposeAdmin(&node.AdminRequest{Kind: node.AdminFinalize, Feature: node.FeatureAtomicCommit}); err == nil {
		f.proposedNs = now
		c.brokers[SimID(lead)].inputTaken()
	}
}

// freshestMetadata is the metadata of the running broker that applied
// the most of the metadata group's log (false: none runs).
func (c *Cluster) freshestMetadata() (node.Metadata, bool) {
	var best node.Metadata
	var bestApplied uint64
	found := false
	for i := 0; i < c.cfg.Brokers; i++ {
		n := c.Node(c.IdentityOf(i))
		if n == nil {
			continue
		}
		if applied := n.MetadataApplied(); !found || applied > bestApplied {
			best, bestApplied, found = n.Metadata(), applied, true
		}
	}
	return best, found
}
