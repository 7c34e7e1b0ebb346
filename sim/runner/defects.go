package runner

import (
	"fmt"
	"strings"

	"github.com/felixsim/felixsim/node"
)

// The files that hold the planted bugs' switches: each package reads its
// defects in one file (DefectTable; TestDefectTableNamesTheSwitchFiles).
const (
	nodeDefectsFile     = "node/defects.go"
	logstoreDefectsFile = "logstore/defects.go"
	clientDefectsFile   = "client/defects.go"
	clusterDefectsFile  = "sim/cluster/replace.go"
)

// defectNames maps the CLI's names of planted broker bugs to their switch,
// the file that holds the switch and, for a bug the default fault kinds
// cannot show (it needs operator actions, which "all" leaves out), the
// fault kinds that can (DefectFaults).
var defectNames = []struct {
	name   string
	set    func(d *node.Defects) *bool
	faults string
	// file holds the switch (module-relative); gate is the identifier the
	// switch tests there when it is not the node.Defects field's name (the
	// store's bits).
	file, gate string
}{
	{"stale-read", func(d *node.Defects) *bool { return &d.StateReadWithoutReadIndex }, "", nodeDefectsFile, ""},
	{"ack-before-quorum", func(d *node.Defects) *bool { return &d.AckBeforeQuorum }, "", nodeDefectsFile, ""},
	{"commit-if-at-proposal", func(d *node.Defects) *bool { return &d.CommitIfCheckedAtProposal }, "", nodeDefectsFile, ""},
	{"commit-as-two-records", func(d *node.Defects) *bool { return &d.CommitAsTwoRecords }, "", nodeDefectsFile, ""},
	{"position-apart-from-state", func(d *node.Defects) *bool { return &d.PositionApartFromState }, "", nodeDefectsFile, ""},
	{"partial-apply", func(d *node.Defects) *bool { return &d.PartialApply }, "", nodeDefectsFile, ""},
	{"no-fsync", func(d *node.Defects) *bool { return &d.NoFsync }, "", logstoreDefectsFile, "DefectSkipFsync"},
	{"keep-stale-suffix", func(d *node.Defects) *bool { return &d.KeepStaleSuffix }, "", logstoreDefectsFile, "DefectKeepStaleSuffix"},
	{"vote-not-persisted", func(d *node.Defects) *bool { return &d.VoteNotPersisted }, "", nodeDefectsFile, ""},
	{"ack-not-persisted", func(d *node.Defects) *bool { return &d.AckNotPersisted }, "", nodeDefectsFile, ""},
	{"redeliver-acked", func(d *node.Defects) *bool { return &d.RedeliverAcked }, "", nodeDefectsFile, ""},
	{"lease-by-local-clock", func(d *node.Defects) *bool { return &d.LeaseByLocalClock }, "", nodeDefectsFile, ""},
	{"ack-drops-older-leases", func(d *node.Defects) *bool { return &d.AckDropsOlderLeases }, "", nodeDefectsFile, ""},
	{"wrong-route-hash", func(d *node.Defects) *bool { return &d.WrongRouteHash }, "", clientDefectsFile, ""},
	{"unscoped-outbox", func(d *node.Defects) *bool { return &d.UnscopedOutbox }, "", nodeDefectsFile, ""},
	{"rejoin-old-identity", func(d *node.Defects) *bool { return &d.RejoinOldIdentity }, "", clusterDefectsFile, ""},
	{"recreate-keeps-state", func(d *node.Defects) *bool { return &d.RecreateKeepsState }, "streamcreate,kill", nodeDefectsFile, ""},
	{"early-finalize", func(d *node.Defects) *bool { return &d.EarlyFinalize }, "upgrade,finalize,kill", nodeDefectsFile, ""},
	{"snapshot-without-groups", func(d *node.Defects) *bool { return &d.SnapshotWithoutGroups }, "", nodeDefectsFile, ""},
	{"repropose-pending", func(d *node.Defects) *bool { return &d.ReproposePending }, "", nodeDefectsFile, ""},
	{"not-leader-after-propose", func(d *node.Defects) *bool { return &d.NotLeaderAfterPropose }, "", nodeDefectsFile, ""},
	{"timeout-as-failure", func(d *node.Defects) *bool { return &d.TimeoutAsFailure }, "", clientDefectsFile, ""},
	{"read-value-at-arrival", func(d *node.Defects) *bool { return &d.StateReadValueAtArrival }, "", nodeDefectsFile, ""},
	{"install-keeps-old-groups", func(d *node.Defects) *bool { return &d.InstallKeepsOldGroups }, "", nodeDefectsFile, ""},
	{"outbox-trim-one-short", func(d *node.Defects) *bool { return &d.OutboxTrimOneShort }, "", nodeDefectsFile, ""},
	{"retain-ignores-groups", func(d *node.Defects) *bool { return &d.RetainIgnoresGroups }, "", nodeDefectsFile, ""},
	{"retain-drops-outbox", func(d *node.Defects) *bool { return &d.RetainDropsOutbox }, "", nodeDefectsFile, ""},
	{"promote-before-caught-up", func(d *node.Defects) *bool { return &d.PromoteBeforeCaughtUp }, "", nodeDefectsFile, ""},
	{"writes-wait-for-learner", func(d *node.Defects) *bool { return &d.WritesWaitForLearner }, "diskreplace", nodeDefectsFile, ""},
	{"ephemeral-read-keeps-queue", func(d *node.Defects) *bool { return &d.EphemeralReadKeepsQueue }, "", nodeDefectsFile, ""},
	{"ephemeral-commit-to-subscribers", func(d *node.Defects) *bool { return &d.EphemeralCommitToSubscribers }, "", nodeDefectsFile, ""},
	{"ephemeral-unscoped", func(d *node.Defects) *bool { return &d.EphemeralUnscoped }, "", nodeDefectsFile, ""},
	{"recreate-strands-groups", func(d *node.Defects) *bool { return &d.RecreateStrandsGroups }, "streamcreate,kill", nodeDefectsFile, ""},
	{"lease-unit-slip", func(d *node.Defects) *bool { return &d.LeaseUnitSlip }, "", nodeDefectsFile, ""},
	{"failed-on-copy-refusal", func(d *node.Defects) *bool { return &d.FailedOnCopyRefusal }, "", clientDefectsFile, ""},
	{"commands-not-leader-after-propose", func(d *node.Defects) *bool { return &d.CommandsNotLeaderAfterPropose }, "", nodeDefectsFile, ""},
	{"outbox-read-from-window", func(d *node.Defects) *bool { return &d.OutboxReadFromWindow }, "", nodeDefectsFile, ""},
	{"deleted-stream-takes-writes", func(d *node.Defects) *bool { return &d.DeletedStreamTakesWrites }, "streamdelete,streamcreate,latency", nodeDefectsFile, ""},
	{"live-read-waits-for-batch", func(d *node.Defects) *bool { return &d.LiveReadWaitsForBatch }, "", nodeDefectsFile, ""},
	{"recovery-cuts-last-commit", func(d *node.Defects) *bool { return &d.RecoveryCutsLastCommit }, "", logstoreDefectsFile, "DefectCutLastTxn"},
	{"lease-read-by-ticks", func(d *node.Defects) *bool { return &d.LeaseReadByTicks }, "pauseafter", nodeDefectsFile, ""},
	{"pending-matched-by-seq", func(d *node.Defects) *bool { return &d.PendingMatchedBySeq }, "restartafter", nodeDefectsFile, ""},
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

// DefectTable lists the planted bugs one a line, each with the file that
// holds its switch: "name (file)".
func DefectTable() string {
	var b strings.Builder
	for _, dn := range defectNames {
		fmt.Fprintf(&b, "%s (%s)\n", dn.name, dn.file)
	}
	return b.String()
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
