package relay

import (
	"fmt"
	"slices"

	"github.com/felixsim/felixsim/client"
	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/properties"
	"github.com/felixsim/felixsim/sim/cluster"
	"github.com/felixsim/felixsim/sim/simapi"
	"github.com/felixsim/felixsim/sim/world"
	"github.com/felixsim/felixsim/wire"
)

// Defaults of a Config field left zero.
const (
	// PollNsDefault is how often the relay reads every idle scope.
	PollNsDefault = 100_000_000 // 100 ms
	// ReadEntriesMaxDefault is the most entries one outbox read asks for.
	ReadEntriesMaxDefault = 256
	// CallTimeoutNsDefault is how long one read or trim waits for its answer.
	CallTimeoutNsDefault = 1_000_000_000
)

// ScopesMax caps the scopes one relay serves.
const ScopesMax = 1024

// Config describes the relay; build it by field name.
type Config struct {
	// Client knows the brokers and the topology (cluster.ClientConfig);
	// CallTimeoutNs zero takes CallTimeoutNsDefault; PendingMax is set to
	// two calls per scope, a read and a trim.
	Client client.Config
	// Scopes are the scopes relayed, each once; their order is the
	// position file's.
	Scopes []felix.Scope
	// PollNs and ReadEntriesMax: zero takes the defaults above.
	PollNs         int64
	ReadEntriesMax uint32
	// SinkHeldMax is how many deliveries the sink holds in memory before
	// it spills them (0: SinkHeldMax).
	SinkHeldMax int
}

// Relay is the relay across its incarnations: its config, its sink and
// the incarnation now running (the world makes a fresh one at each boot).
type Relay struct {
	cfg  Config
	sink *Sink
	cur  *incarnation
	// epoch counts MarkQuiesce calls; Drained asks for reads begun in it.
	epoch uint64
	stats Stats
	// trims records every trim call answered (or timed out), for the
	// honesty of its answers; at most TrimCallsMax (overflow policy:
	// later ones are not recorded, and trimsCut is set).
	trims    []properties.OutboxTrimCall
	trimsCut bool
}

// TrimCallsMax caps the trim calls a relay records.
const TrimCallsMax = 1 << 16

// Stats counts the relay's work over all incarnations.
type Stats struct {
	// Boots counts incarnations; FreshStarts those that found no usable
	// position file and started every scope from offset 0.
	Boots, FreshStarts uint64
	// Trims counts trims the brokers acknowledged; PersistFailures the
	// position writes the disk refused.
	Trims, PersistFailures uint64
}

// New returns a relay and the world slot that hosts it (put it in
// cluster.Config.Extra). The slot is not fault exempt: plan faults may
// kill, pause or partition the relay and fail its disk.
func New(cfg Config) (*Relay, world.NodeSpec, error) {
	if cfg.PollNs == 0 {
		cfg.PollNs = PollNsDefault
	}
	if cfg.ReadEntriesMax == 0 {
		cfg.ReadEntriesMax = ReadEntriesMaxDefault
	}
	if cfg.Client.CallTimeoutNs == 0 {
		cfg.Client.CallTimeoutNs = CallTimeoutNsDefault
	}
	if err := cfg.validate(); err != nil {
		return nil, world.NodeSpec{}, err
	}
	cfg.Client.PendingMax = 2 * len(cfg.Scopes) // a read and a trim per scope at most
	cfg.Scopes = slices.Clone(cfg.Scopes)
	r := &Relay{cfg: cfg, sink: newSink(cfg.Scopes)}
	if cfg.SinkHeldMax > 0 {
		r.sink.heldMax = cfg.SinkHeldMax
	}
	return r, world.NodeSpec{Name: "relay", New: func() simapi.Process { return &incarnation{r: r} }}, nil
}

func (c *Config) validate() error {
	if len(c.Scopes) == 0 || len(c.Scopes) > ScopesMax {
		return fmt.Errorf("relay: %d scopes refused: want 1..%d", len(c.Scopes), ScopesMax)
	}
	for i, s := range c.Scopes {
		if err := s.Validate(); err != nil {
			return fmt.Errorf("relay: scope %d refused: %w", i, err)
		}
		if slices.Contains(c.Scopes[:i], s) {
			return fmt.Errorf("relay: scope %s listed twice", s)
		}
	}
	if c.PollNs < 1 || c.ReadEntriesMax < 1 || c.ReadEntriesMax > wire.ReadEntriesMax {
		return fmt.Errorf("relay: poll %d ns, read entries max %d refused: want a positive poll and 1..%d entries", c.PollNs, c.ReadEntriesMax, wire.ReadEntriesMax)
	}
	return nil
}

// Sink is the relay's downstream sink.
func (r *Relay) Sink() *Sink { return r.sink }

// Close releases what the relay's sink keeps on disk.
func (r *Relay) Close() error { return r.sink.Close() }

// Stats returns the relay's counters.
func (r *Relay) Stats() Stats { return r.stats }

// MarkQuiesce starts a new epoch: Drained then waits for every scope to
// have been read empty by a read begun after this call.
func (r *Relay) MarkQuiesce() { r.epoch++ }

// Drained reports whether the running incarnation has, for every scope, a
// read begun since the last MarkQuiesce that found nothing new, and every
// delivered entry persisted and trimmed; otherwise it names the first
// scope still open.
func (r *Relay) Drained() (bool, string) {
	inc := r.cur
	if inc == nil || inc.env == nil {
		return false, "relay not running"
	}
	for i := range inc.scopes {
		s := &inc.scopes[i]
		switch {
		case s.drainedEpoch != r.epoch || r.epoch == 0:
			return false, fmt.Sprintf("relay scope %s: no empty read since the quiesce mark (next offset %d)", r.cfg.Scopes[i], s.next)
		case s.trimmed != s.next:
			return false, fmt.Sprintf("relay scope %s: delivered through %d, trimmed through %d", r.cfg.Scopes[i], int64(s.next)-1, int64(s.trimmed)-1)
		}
	}
	return true, ""
}

// scopeState is one scope's progress in an incarnation.
//
// Invariant: trimmed <= persisted <= next.
type scopeState struct {
	// next is the next offset to deliver; persisted the position the
	// position file holds; trimmed the offset through which (exclusive)
	// a broker acknowledged a trim this incarnation.
	next, persisted, trimmed uint64
	// reading and trimming are set while a call is in flight.
	reading, trimming bool
	// drainedEpoch is the epoch of the last read that found nothing new.
	drainedEpoch uint64
}

// incarnation is one boot of the relay process.
type incarnation struct {
	r      *Relay
	env    simapi.Env
	cl     *client.Client
	scopes []scopeState
	// dirty is set when next moved past persisted in some scope.
	dirty  bool
	pollFn func()
}

var _ simapi.Process = (*incarnation)(nil)

// Boot loads the position file (none usable: every scope from 0), builds
// a client and starts polling.
func (inc *incarnation) Boot(env simapi.Env) {
	r := inc.r
	inc.env = env
	r.cur = inc
	r.stats.Boots++
	cl, err := client.New(r.cfg.Client, transport{env: env})
	if err != nil {
		panic(fmt.Sprintf("relay: client config: %v", err)) // validated by the caller's topology
	}
	inc.cl = cl
	inc.scopes = make([]scopeState, len(r.cfg.Scopes))
	next, err := loadPositions(env.FS(), len(r.cfg.Scopes))
	if err != nil {
		r.stats.FreshStarts++
		next = make([]uint64, len(r.cfg.Scopes))
	}
	for i := range inc.scopes {
		inc.scopes[i] = scopeState{next: next[i], persisted: next[i]}
	}
	inc.pollFn = inc.poll
	env.AfterNs(r.cfg.PollNs, inc.pollFn)
}

// Receive hands a broker's answer to the client.
func (inc *incarnation) Receive(from int, msg simapi.Message) {
	a, ok := msg.(*cluster.AnswerMsg)
	if !ok {
		panic(fmt.Sprintf("relay: received a %T from %d", msg, from))
	}
	inc.cl.Deliver(inc.env.NowNs(), client.NodeID(cluster.RaftID(from)), a.Ans)
}

// poll runs every PollNs: expire overdue calls, persist what was
// delivered, trim what is persisted, read every idle scope.
func (inc *incarnation) poll() {
	now := inc.env.NowNs()
	inc.cl.Tick(now)
	inc.persist()
	for i := range inc.scopes {
		inc.trim(now, i)
		inc.read(now, i)
	}
	inc.env.AfterNs(inc.r.cfg.PollNs, inc.pollFn)
}

// persist writes every scope's next offset to the position file. A write
// the disk refuses rewinds every scope to its persisted position, as a
// crash would: what was delivered since is delivered again.
func (inc *incarnation) persist() {
	if !inc.dirty {
		return
	}
	next := make([]uint64, len(inc.scopes))
	for i := range inc.scopes {
		next[i] = inc.scopes[i].next
	}
	if err := storePositions(inc.env.FS(), next); err != nil {
		inc.r.stats.PersistFailures++
		for i := range inc.scopes {
			inc.scopes[i].next = inc.scopes[i].persisted
		}
		inc.dirty = false
		return
	}
	for i := range inc.scopes {
		inc.scopes[i].persisted = next[i]
	}
	inc.dirty = false
}

// read asks for scope i's outbox from its next offset, unless a read is
// in flight.
func (inc *incarnation) read(now int64, i int) {
	s := &inc.scopes[i]
	if s.reading {
		return
	}
	from, epoch := s.next, inc.r.epoch
	p, err := inc.cl.OutboxRead(now, inc.r.cfg.Scopes[i], from, inc.r.cfg.ReadEntriesMax)
	if err != nil {
		return // refused before sending (the client's cap): try next poll
	}
	s.reading = true
	p.OnDone(func(es []felix.Entry, err error) {
		s.reading = false
		if err == nil {
			inc.delivered(i, from, epoch, es)
		}
	})
}

// delivered hands a read's entries to the sink in offset order. A read
// answered after the scope moved (a rewind) is dropped.
func (inc *incarnation) delivered(i int, from, epoch uint64, es []felix.Entry) {
	s := &inc.scopes[i]
	if from != s.next {
		return
	}
	fresh := 0
	for k := range es {
		e := &es[k]
		if e.Offset < s.next {
			continue
		}
		inc.r.sink.deliver(inc.r.cfg.Scopes[i], e, inc.env.Incarnation())
		s.next = e.Offset + 1
		fresh++
	}
	if fresh == 0 {
		s.drainedEpoch = epoch
		return
	}
	inc.dirty = true
}

// trim confirms scope i's persisted entries to the brokers, unless a trim
// is in flight or nothing new is persisted.
func (inc *incarnation) trim(now int64, i int) {
	s := &inc.scopes[i]
	if s.trimming || s.persisted == 0 || s.trimmed >= s.persisted {
		return
	}
	through := s.persisted - 1
	p, err := inc.cl.OutboxTrim(now, inc.r.cfg.Scopes[i], through)
	if err != nil {
		return
	}
	s.trimming = true
	p.OnDone(func(_ struct{}, err error) {
		inc.r.recordTrim(inc, i, through, now, p.Attempts())
		s.trimming = false
		if err == nil {
			inc.r.stats.Trims++
			s.trimmed = max(s.trimmed, through+1)
		}
	})
}

// recordTrim records a completed trim of scope i through offset through,
// sent at sentNs, and its attempts (their delivered copies still to count).
func (r *Relay) recordTrim(inc *incarnation, i int, through uint64, sentNs int64, ats []client.Attempt) {
	if len(r.trims) >= TrimCallsMax {
		r.trimsCut = true
		return
	}
	call := properties.OutboxTrimCall{Incarnation: inc.env.Incarnation(), Scope: r.cfg.Scopes[i], Through: through,
		InvokeNs: sentNs, CompleteNs: inc.env.NowNs()}
	for _, a := range ats {
		call.Requests = append(call.Requests, properties.HistoryRequest{ID: a.RequestID, Broker: uint64(a.Broker), Answer: properties.HistoryAnswerOfWire(a.AnswerName())})
	}
	r.trims = append(r.trims, call)
}

// TrimCalls returns the trim calls recorded (the caller owns the copy) and
// whether the record was cut at TrimCallsMax.
func (r *Relay) TrimCalls() ([]properties.OutboxTrimCall, bool) {
	return append([]properties.OutboxTrimCall(nil), r.trims...), r.trimsCut
}

// transport sends a copy of each request to the broker's sim id.
type transport struct{ env simapi.Env }

func (t transport) Send(to client.NodeID, req *wire.Request) {
	r := *req
	t.env.Send(cluster.SimID(uint64(to)), &cluster.RequestMsg{Req: &r})
}
