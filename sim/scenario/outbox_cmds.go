package scenario

import (
	"fmt"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
)

// OutboxDeliveriesMax bounds the outbox entries a scenario records as
// delivered; a read past it is refused.
const OutboxDeliveriesMax = 4096

// cmdOutboxRead: outbox read TENANT NS STREAM/SHARD [--from N] [--max N]
// reads the scope's outbox as the outbox relay does and takes what it
// returns as delivered downstream: check then judges those deliveries
// against the committed log as it judges a run's relay sink (every
// outbox property but OutboxDelivered, which needs a relay that drained).
func (r *Runner) cmdOutboxRead(a *args) (string, error) {
	who, err := r.clientOf(a)
	if err != nil {
		return "", err
	}
	from := a.intFlag("from", 0)
	maxN := a.intFlag("max", 100)
	p := a.positional(3, 3, "outbox read TENANT NS STREAM/SHARD [--from N] [--max N]")
	if p == nil {
		return "", nil
	}
	sc, err := r.scopeArg(p[0], p[1], p[2])
	if err != nil {
		return "", err
	}
	if len(r.delivered)+maxN > OutboxDeliveriesMax {
		return "", fmt.Errorf("outbox read refused: a scenario records at most %d deliveries", OutboxDeliveriesMax)
	}
	pr, err := who.proc.Client.OutboxRead(who.proc.NowNs(), sc, uint64(from), uint32(maxN))
	return r.issue(who, pending("outbox read "+p[2], pr, err, func(es []felix.Entry, err error) (string, error) {
		if err != nil {
			return "failed: " + err.Error(), nil
		}
		for i := range es {
			r.delivered = append(r.delivered, properties.OutboxDeliveryOf(uint64(len(r.delivered)), sc, &es[i], 1))
		}
		return entriesText(es), nil
	}))
}

// cmdOutboxTrim: outbox trim TENANT NS STREAM/SHARD THROUGH confirms the
// scope's outbox entries through offset THROUGH delivered, as the relay
// does after its sink took them.
func (r *Runner) cmdOutboxTrim(a *args) (string, error) {
	who, err := r.clientOf(a)
	if err != nil {
		return "", err
	}
	p := a.positional(4, 4, "outbox trim TENANT NS STREAM/SHARD THROUGH")
	if p == nil {
		return "", nil
	}
	sc, err := r.scopeArg(p[0], p[1], p[2])
	if err != nil {
		return "", err
	}
	through, err := parseUint("offset", p[3])
	if err != nil {
		return "", err
	}
	pt, err := who.proc.Client.OutboxTrim(who.proc.NowNs(), sc, through)
	return r.issue(who, pending("outbox trim "+p[2], pt, err, func(_ struct{}, err error) (string, error) {
		if err != nil {
			return "failed: " + err.Error(), nil
		}
		return "ok", nil
	}))
}
