package runner

import (
	"fmt"
	"strings"

	"github.com/felixsim/felixsim/node"
)

// defectNames maps the CLI's names of planted broker bugs to their switch
// and, for a bug the default fault kinds cannot show (it needs operator
// actions, which "all" leaves out), the fault kinds that can (DefectFaults).
var defectNames = []struct {
	name   string
	set    func(d *node.Defects) *bool
	faults string
}{
	{"stale-read", func(d *node.Defects) *bool { return &d.StateReadWithoutReadIndex }, ""},
	{"ack-before-quorum", func(d *node.Defects) *bool { return &d.AckBeforeQuorum }, ""},
	{"commit-if-at-proposal", func(d *node.Defects) *bool { return &d.CommitIfCheckedAtProposal }, ""},
	{"commit-as-two-records", func(d *node.Defects) *bool { return &d.CommitAsTwoRecords }, ""},
	{"position-apart-from-state", func(d *node.Defects) *bool { return &d.PositionApartFromState }, ""},
	{"partial-apply", func(d *node.Defects) *bool { return &d.PartialApply }, ""},
	{"no-fsync", func(d *node.Defects) *bool { return &d.NoFsync }, ""},
	{"keep-stale-suffix", func(d *node.Defects) *bool { return &d.KeepStaleSuffix }, ""},
	{"vote-not-persisted", func(d *node.Defects) *bool { return &d.VoteNotPersisted }, ""},
	{"ack-not-persisted", func(d *node.Defects) *bool { return &d.AckNotPersisted }, ""},
	{"redeliver-acked", func(d *node.Defects) *bool { return &d.RedeliverAcked }, ""},
	{"lease-by-local-clock", func(d *node.Defects) *bool { return &d.LeaseByLocalClock }, ""},
	{"ack-drops-older-leases", func(d *node.Defects) *bool { return &d.AckDropsOlderLeases }, ""},
	{"wrong-route-hash", func(d *node.Defects) *bool { return &d.WrongRouteHash }, ""},
	{"unscoped-outbox", func(d *node.Defects) *bool { return &d.UnscopedOutbox }, ""},
	{"rejoin-old-identity", func(d *node.Defects) *bool { return &d.RejoinOldIdentity }, ""},
	{"recreate-keeps-state", func(d *node.Defects) *bool { return &d.RecreateKeepsState }, "streamcreate,kill"},
	{"early-finalize", func(d *node.Defects) *bool { return &d.EarlyFinalize }, "upgrade,finalize,kill"},
	{"snapshot-without-groups", func(d *node.Defects) *bool { return &d.SnapshotWithoutGroups }, ""},
	{"repropose-pending", func(d *node.Defects) *bool { return &d.ReproposePending }, ""},
	{"not-leader-after-propose", func(d *node.Defects) *bool { return &d.NotLeaderAfterPropose }, ""},
	{"timeout-as-failure", func(d *node.Defects) *bool { return &d.TimeoutAsFailure }, ""},
	{"read-value-at-arrival", func(d *node.Defects) *bool { return &d.StateReadValueAtArrival }, ""},
	{"install-keeps-old-groups", func(d *node.Defects) *bool { return &d.InstallKeepsOldGroups }, ""},
	{"outbox-trim-one-short", func(d *node.Defects) *bool { return &d.OutboxTrimOneShort }, ""},
	{"retain-ignores-groups", func(d *node.Defects) *bool { return &d.RetainIgnoresGroups }, ""},
	{"retain-drops-outbox", func(d *node.Defects) *bool { return &d.RetainDropsOutbox }, ""},
	{"promote-before-caught-up", func(d *node.Defects) *bool { return &d.PromoteBeforeCaughtUp }, ""},
	{"writes-wait-for-learner", func(d *node.Defects) *bool { return &d.WritesWaitForLearner }, ""},
	{"ephemeral-read-keeps-queue", func(d *node.Defects) *bool { return &d.EphemeralReadKeepsQueue }, ""},
	{"ephemeral-commit-to-subscribers", func(d *node.Defects) *bool { return &d.EphemeralCommitToSubscribers }, ""},
	{"ephemeral-unscoped", func(d *node.Defects) *bool { return &d.EphemeralUnscoped }, ""},
	{"recreate-strands-groups", func(d *node.Defects) *bool { return &d.RecreateStrandsGroups }, "streamcreate,kill"},
	{"recovery-cuts-last-commit", func(d *node.Defects) *bool { return &d.RecoveryCutsLastCommit }, ""},
	{"lease-read-by-ticks", func(d *node.Defects) *bool { return &d.LeaseReadByTicks }, ""},
	{"pending-matched-by-seq", func(d *node.Defects) *bool { return &d.PendingMatchedBySeq }, ""},
}

// ParseDefects reads a comma-separated list of planted-bug names ("none"
// or empty: no defect).
func ParseDefects(s string) (node.Defects, error) {
	var d node.Defects
	if s == "" || s == "none" {
		return d, nil
	}
	for _, name := range strings.Split(s, ",") {
		ok := false
		for _, dn := range defectNames {
			if dn.name == strings.TrimSpace(name) {
				*dn.set(&d) = true
				ok = true
			}
		}
		if !ok {
			return node.Defects{}, fmt.Errorf("defect %q refused: known defects are %s", name, DefectNames())
		}
	}
	return d, nil
}

// DefectFaults is the fault list (as ParseFaults reads it) under which a
// run can show the named planted bug: the kinds its failure needs when
// the default ("all") cannot draw them, else "all".
func DefectFaults(name string) (string, error) {
	for _, dn := range defectNames {
		if dn.name == name {
			if dn.faults == "" {
				return "all", nil
			}
			return dn.faults, nil
		}
	}
	return "", fmt.Errorf("defect %q refused: known defects are %s", name, DefectNames())
}

// DefectNames lists the planted bugs by name, comma-separated.
func DefectNames() string {
	var out []string
	for _, dn := range defectNames {
		out = append(out, dn.name)
	}
	return strings.Join(out, ",")
}

// defectList renders the defects that are on as ParseDefects reads them.
func (o Options) defectList() string { return defectsString(o.Defects) }

// DefectList renders the defects that are on as ParseDefects reads them,
// "none" when none is.
func (o Options) DefectList() string {
	if s := o.defectList(); s != "" {
		return s
	}
	return "none"
}

func defectsString(d node.Defects) string {
	var out []string
	for _, dn := range defectNames {
		if *dn.set(&d) {
			out = append(out, dn.name)
		}
	}
	return strings.Join(out, ",")
}
