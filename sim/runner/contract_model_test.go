package runner

import (
	"errors"
	"fmt"
	"reflect"
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/workload"
	"github.com/felixsim/felixsim/statemachine"
	"pgregory.net/rapid"
)

// TestStateMachineKeepsTheContract holds the broker's state machine to the
// contract model (properties.ContractScope), two statements of one
// contract written apart: random calls on one quorum scope (writes of every
// kind, conditional ones at the tail or not, state reads, subscribe reads,
// group fetches at moving times, acks of handed-out and other offsets,
// retain commands clamped as the broker clamps them, a finalization), and
// every answer and the groups after each call must agree. A disagreement
// names the call; the model was written from docs/atomic-commit.md, so one
// of the two is wrong.
func TestStateMachineKeepsTheContract(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		cfg := statemachine.Config{Scope: felix.Scope{Tenant: "acme", Namespace: "orders", Stream: "s"}, Kind: statemachine.StreamQuorum,
			RetainedLenMax: rapid.IntRange(2, 6).Draw(t, "retained"), ReplayWindowLenMax: rapid.IntRange(1, 6).Draw(t, "window"),
			GroupsMax: 4, LeasesPerGroupMax: rapid.IntRange(1, 4).Draw(t, "leases")}
		sm, err := statemachine.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		feat := statemachine.Features{}
		model := properties.NewContractScope(properties.ContractConfig{RetainedLenMax: cfg.RetainedLenMax,
			ReplayWindowLenMax: cfg.ReplayWindowLenMax, LeasesPerGroupMax: cfg.LeasesPerGroupMax})
		nowNs := int64(0)
		for i, n := 0, rapid.IntRange(1, 60).Draw(t, "calls"); i < n; i++ {
			nowNs += rapid.Int64Range(0, 30).Draw(t, "dt")
			var what string
			var got, want any
			switch rapid.IntRange(0, 7).Draw(t, "call") {
			case 0, 1:
				what, got, want = contractWrite(t, sm, model, &feat, i)
			case 2:
				key := rapid.SampledFrom([]string{"a", "b"}).Draw(t, "key")
				v, ver, found := sm.StateGet(key)
				a := model.StateGet(key)
				what, got, want = "state_get "+key, fmt.Sprint(found, string(v), ver), fmt.Sprint(a.Found, a.Value, a.Version)
			case 3:
				from, m := rapid.Uint64Range(0, sm.NextOffset()).Draw(t, "from"), rapid.IntRange(1, 3).Draw(t, "max")
				es, err := sm.ReadFrom(from, m)
				what, got, want = fmt.Sprintf("read from %d", from), smEntries(es, err), modelEntries(model.Read(from, m))
			case 4:
				g, lease, m := rapid.SampledFrom([]string{"g", "h"}).Draw(t, "group"), rapid.Int64Range(1, 40).Draw(t, "lease"), rapid.IntRange(1, 3).Draw(t, "max")
				ds, err := sm.Fetch(statemachine.GroupFetch{Group: g, NowNs: nowNs, LeaseNs: lease, EntriesMax: m})
				what, got, want = fmt.Sprintf("fetch %s at %d", g, nowNs), smDeliveries(ds, err), modelEntries(model.Fetch(g, nowNs, lease, m))
			case 5:
				g, off := rapid.SampledFrom([]string{"g", "h"}).Draw(t, "group"), rapid.Uint64Range(0, sm.NextOffset()).Draw(t, "ack")
				err := sm.Ack(statemachine.GroupAck{Group: g, Offset: off})
				what, got, want = fmt.Sprintf("ack %s %d", g, off), err == nil, model.Ack(g, off).Answer == properties.AnswerAcked
			case 6:
				below := rapid.Uint64Range(0, sm.NextOffset()).Draw(t, "below")
				if err := sm.DropBefore(min(below, sm.GroupsCommittedMin())); err != nil {
					t.Fatal(err)
				}
				what, got, want = fmt.Sprintf("retain below %d", below), sm.FirstOffset(), model.Retain(below)
			case 7:
				feat.AtomicCommitFinalized = true
				model.Finalize()
				continue
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("call %d, %s: state machine %v, contract model %v", i, what, got, want)
			}
			if g, w := leasesNilled(workload.ScopeGroupsOf(cfg.Scope, sm.Groups()).Groups), leasesNilled(model.Groups()); !reflect.DeepEqual(g, w) {
				t.Fatalf("call %d, %s: groups %+v, contract model %+v", i, what, g, w)
			}
		}
	})
}

// leasesNilled is gs with empty lease lists nil, empty gs nil: how a
// group holds no lease is not what the two statements compare.
func leasesNilled(gs []properties.GroupView) []properties.GroupView {
	if len(gs) == 0 {
		return nil
	}
	for i := range gs {
		if len(gs[i].Leases) == 0 {
			gs[i].Leases = nil
		}
	}
	return gs
}

// contractWrite applies one drawn write to both and renders each answer.
func contractWrite(t *rapid.T, sm *statemachine.Shard, model *properties.ContractScope, feat *statemachine.Features, i int) (string, any, any) {
	rec := felix.Record{Event: felix.EventPublish, Payload: []byte(fmt.Sprintf("e%d", i))}
	kind := properties.ContractPublish
	if rapid.Bool().Draw(t, "commit") {
		kind = properties.ContractCommit
		rec.Ops = []felix.StateOp{{Kind: felix.OpPut, Key: rapid.SampledFrom([]string{"a", "b"}).Draw(t, "wkey"), Value: []byte(fmt.Sprint(i))}}
		if rapid.Bool().Draw(t, "del") {
			rec.Ops = append(rec.Ops, felix.StateOp{Kind: felix.OpDelete, Key: "b"})
		}
	}
	if rapid.Bool().Draw(t, "conditional") {
		rec.Conditional, rec.ExpectedOffset = true, sm.NextOffset()-uint64(rapid.IntRange(0, 1).Draw(t, "stale"))
		kind++ // publish_if, commit_if
	}
	mrec := rec
	mrec.Ops = append([]felix.StateOp(nil), rec.Ops...)
	res, err := sm.Apply(&rec, *feat)
	a := model.Write(kind, &mrec)
	got := "error " + smCode(err)
	switch {
	case err == nil && res.Outcome == statemachine.OutcomeWritten:
		got = fmt.Sprintf("written %d 0", res.Offset)
	case err == nil:
		got = fmt.Sprintf("refused 0 %d", res.Tail)
	}
	want := "error " + a.Answer.String()
	switch a.Answer {
	case properties.AnswerWritten:
		want = fmt.Sprintf("written %d 0", a.Offset)
	case properties.AnswerRefused:
		want = fmt.Sprintf("refused 0 %d", a.Tail)
	}
	return fmt.Sprintf("write %s %+v", kind, rec), got, want
}

// smCode names a state machine refusal by the wire code the broker maps it to.
func smCode(err error) string {
	switch {
	case errors.Is(err, statemachine.ErrFeatureNotFinalized):
		return properties.AnswerFeatureNotFinalized.String()
	case errors.Is(err, statemachine.ErrEphemeralRefusesCommit):
		return properties.AnswerEphemeralStream.String()
	case errors.Is(err, statemachine.ErrWindowHeld):
		return properties.AnswerUnavailable.String()
	case errors.Is(err, statemachine.ErrBeforeWindow), errors.Is(err, statemachine.ErrDropped):
		return properties.AnswerBeforeWindow.String()
	}
	return properties.AnswerInvalidRequest.String()
}

func smEntries(es []felix.Entry, err error) string {
	if err != nil {
		var oe *statemachine.OffsetError
		if errors.As(err, &oe) && smCode(err) == properties.AnswerBeforeWindow.String() {
			return fmt.Sprintf("BeforeWindow %d", oe.StartOffset)
		}
		return smCode(err)
	}
	out := "entries"
	for i := range es {
		out += fmt.Sprintf(" %d:%s", es[i].Offset, es[i].Record.Payload)
	}
	return out
}

func smDeliveries(ds []statemachine.Delivery, err error) string {
	es := make([]felix.Entry, len(ds))
	expiry := int64(0)
	for i := range ds {
		es[i], expiry = ds[i].Entry, ds[i].ExpiryNs
	}
	out := smEntries(es, err)
	if err == nil && len(ds) > 0 {
		out += fmt.Sprintf(" until %d", expiry)
	}
	return out
}

func modelEntries(a properties.ContractAnswer) string {
	switch a.Answer {
	case properties.AnswerBeforeWindow:
		return fmt.Sprintf("BeforeWindow %d", a.WindowStart)
	case properties.AnswerEntries, properties.AnswerDeliveries:
	default:
		return a.Answer.String()
	}
	out := "entries"
	for _, e := range a.Entries {
		out += fmt.Sprintf(" %d:%s", e.Offset, e.Event)
	}
	if a.Answer == properties.AnswerDeliveries && len(a.Entries) > 0 {
		out += fmt.Sprintf(" until %d", a.LeaseExpiryNs)
	}
	return out
}
