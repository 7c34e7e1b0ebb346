package cluster

import (
	"testing"

	"github.com/felixsim/felixsim/node"
)

// TestUpgradeOfAPausedBroker: an operator's upgrade of a broker that is
// paused at the time replaces its process like any other upgrade. Before,
// the upgrade only recorded the version for the next boot, the resume let
// the old process run on at version 1, and a later finalize stayed
// refused for good (seed 64 of `felixsim run --faults all,operator`: a
// pause of broker 2 across its upgrade, then a liveness violation).
func TestUpgradeOfAPausedBroker(t *testing.T) {
	c, _ := newFleetCluster(t, 7, node.Defects{})
	defer c.Close()
	const paused = 2 // sim slot of broker 3
	c.World.Pause(paused, 0)
	c.World.RunFor(secondNs / 10)
	c.Upgrade(RaftID(paused), UpgradeVersion, 100_000_000)
	c.World.Resume(paused)
	if err := c.World.RunUntil(func() (bool, string) {
		n := c.Node(RaftID(paused))
		if n == nil {
			return false, "broker 3 back up"
		}
		for _, r := range c.Snapshot().Replicas {
			if r.Metadata.VersionOf(RaftID(paused)) != UpgradeVersion {
				return false, "every broker's metadata records broker 3 at the new version"
			}
		}
		return true, ""
	}, 30*secondNs); err != nil {
		t.Fatalf("broker 3, upgraded while paused: %v", err)
	}
}
