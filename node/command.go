package node

import (
	"encoding/binary"
	"fmt"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/statemachine"
	"github.com/felixsim/felixsim/wire"
)

// cmdKind is the kind of a raft entry command.
type cmdKind uint8

// Command kinds; the zero value is invalid.
const (
	cmdInvalid cmdKind = iota
	// cmdWrite writes a record (publish, enqueue, commit, and their _if forms).
	cmdWrite
	// cmdFetch is a consumer-group fetch, timed by the proposer's clock.
	cmdFetch
	// cmdAck is a consumer-group ack.
	cmdAck
	// cmdSetVersion records a broker's software version (metadata group).
	cmdSetVersion
	// cmdFinalize finalizes a fleet feature (metadata group).
	cmdFinalize
	// cmdFeature carries a fleet feature the metadata group finalized into a
	// stream shard group's own log: replicas gate on it at the same index.
	cmdFeature
	// cmdRetain drops a scope's records below an offset (retention by age,
	// proposed by the leader).
	cmdRetain
	// cmdOutboxTrim drops a scope's outbox entries through an offset.
	cmdOutboxTrim
	// cmdStreamAdmin creates (recreates) or deletes a stream (metadata group).
	cmdStreamAdmin
	// cmdIncarnation carries a stream's incarnation the metadata group
	// decided into a stream shard group's own log (see streamadmin.go).
	cmdIncarnation
	cmdKindEnd
)

func (k cmdKind) String() string {
	switch k {
	case cmdWrite:
		return "write"
	case cmdFetch:
		return "fetch"
	case cmdAck:
		return "ack"
	case cmdSetVersion:
		return "set_version"
	case cmdFinalize:
		return "finalize"
	case cmdFeature:
		return "feature"
	case cmdRetain:
		return "retain"
	case cmdOutboxTrim:
		return "outbox_trim"
	case cmdStreamAdmin:
		return "stream_admin"
	case cmdIncarnation:
		return "incarnation"
	}
	return fmt.Sprintf("cmdKind(%d)", uint8(k))
}

// commandMagic opens every command so that stray bytes are refused early.
const commandMagic = 0xFC

// command is what a raft entry carries: who proposed it (so the proposer
// can answer its client when it applies the entry) and the operation.
type command struct {
	kind cmdKind
	// proposer is the node that proposed the entry; incarnation is its boot
	// count then; seq is unique within that incarnation. Together they
	// name the pending request to answer.
	proposer    uint64
	incarnation uint64
	seq         uint64
	scope       felix.Scope
	record      felix.Record // cmdWrite
	group       string       // cmdFetch, cmdAck
	nowNs       int64        // cmdFetch
	leaseNs     int64        // cmdFetch
	entriesMax  uint32       // cmdFetch
	offset      uint64       // cmdAck; cmdRetain: drop below it; cmdOutboxTrim: through it
	node        uint64       // cmdSetVersion
	version     uint32       // cmdSetVersion
	feature     string       // cmdFinalize, cmdFeature
	generation  uint32       // cmdIncarnation; cmdStreamAdmin: the generation it acts on (0: the current one); cmdWrite: the one whose leader accepted it (0: the first)
	deleted     bool         // cmdStreamAdmin (delete, else create), cmdIncarnation
}

// encodeCommand encodes c; the record must be valid (checked before proposing).
func encodeCommand(c *command) ([]byte, error) {
	e := enc{b: make([]byte, 0, commandLen(c))}
	e.u8(commandMagic)
	e.u8(uint8(c.kind))
	e.u64(c.proposer)
	e.u64(c.incarnation)
	e.u64(c.seq)
	switch c.kind {
	case cmdWrite, cmdFetch, cmdAck, cmdRetain, cmdOutboxTrim:
		e.str(c.scope.Tenant)
		e.str(c.scope.Namespace)
		e.str(c.scope.Stream)
		e.u32(c.scope.Shard)
	}
	switch c.kind {
	case cmdWrite:
		at := len(e.b)
		e.u32(0) // the record's length, filled in below
		var err error
		if e.b, err = wire.AppendRecord(e.b, &c.record); err != nil {
			return nil, err
		}
		binary.LittleEndian.PutUint32(e.b[at:], uint32(len(e.b)-at-4))
		if c.generation > bootIncarnation.Generation {
			e.u32(c.generation) // absent: the first generation (how every write was encoded before)
		}
	case cmdFetch:
		e.str(c.group)
		e.u64(uint64(c.nowNs))
		e.u64(uint64(c.leaseNs))
		e.u32(c.entriesMax)
	case cmdAck:
		e.str(c.group)
		e.u64(c.offset)
	case cmdRetain, cmdOutboxTrim:
		e.u64(c.offset)
	case cmdSetVersion:
		e.u64(c.node)
		e.u32(c.version)
	case cmdFinalize, cmdFeature:
		e.str(c.feature)
	case cmdStreamAdmin:
		e.str(c.scope.Namespace)
		e.str(c.scope.Stream)
		e.u32(c.generation)
		e.u8(boolByte(c.deleted))
	case cmdIncarnation:
		e.u32(c.generation)
		e.u8(boolByte(c.deleted))
	default:
		panic(fmt.Sprintf("encodeCommand: kind %d", c.kind))
	}
	return e.b, nil
}

// commandLen is the length encodeCommand gives c when c is valid (a
// capacity hint: a wrong one costs only a regrowth).
func commandLen(c *command) int {
	n := 2 + 3*8
	switch c.kind {
	case cmdWrite, cmdFetch, cmdAck, cmdRetain, cmdOutboxTrim:
		n += 3*4 + len(c.scope.Tenant) + len(c.scope.Namespace) + len(c.scope.Stream) + 4
	}
	switch c.kind {
	case cmdWrite:
		n += 4 + wire.RecordFrameLen(&c.record)
		if c.generation > bootIncarnation.Generation {
			n += 4
		}
	case cmdFetch:
		n += 4 + len(c.group) + 8 + 8 + 4
	case cmdAck:
		n += 4 + len(c.group) + 8
	case cmdRetain, cmdOutboxTrim:
		n += 8
	case cmdSetVersion:
		n += 8 + 4
	case cmdFinalize, cmdFeature:
		n += 4 + len(c.feature)
	case cmdStreamAdmin:
		n += 4 + len(c.scope.Namespace) + 4 + len(c.scope.Stream) + 4 + 1
	case cmdIncarnation:
		n += 4 + 1
	}
	return n
}

// recordFrameLenMax bounds an encoded record inside a command.
const recordFrameLenMax = 4 << 20

// decodeCommand strictly decodes encodeCommand's output.
func decodeCommand(p []byte) (command, error) { return decodeCommandSharing(p, knownNames{}) }

// knownNames are names a decoded scope may share instead of allocating
// copies: a stream shard group's tenants, namespace and stream.
type knownNames struct {
	tenants           []string
	namespace, stream string
}

// knownNamesOf returns g's names (none for the metadata group).
func knownNamesOf(g *raftGroup) knownNames {
	if g.spec == nil {
		return knownNames{}
	}
	return knownNames{tenants: g.tenants, namespace: g.spec.Namespace, stream: g.spec.Stream}
}

// decodeCommandSharing is decodeCommand whose scope strings are those of
// known when equal (known may be empty): applying an entry then allocates
// nothing for its scope. The result is the same as decodeCommand's.
func decodeCommandSharing(p []byte, known knownNames) (command, error) {
	d := dec{b: p}
	var c command
	if m := d.u8("magic"); d.err == nil && m != commandMagic {
		d.fail("magic %#x, want %#x", m, commandMagic)
	}
	c.kind = cmdKind(d.u8("kind"))
	if d.err == nil && (c.kind == cmdInvalid || c.kind >= cmdKindEnd) {
		d.fail("unknown command kind %d", c.kind)
	}
	c.proposer = d.u64("proposer")
	c.incarnation = d.u64("incarnation")
	c.seq = d.u64("seq")
	switch c.kind {
	case cmdWrite, cmdFetch, cmdAck, cmdRetain, cmdOutboxTrim:
		c.scope.Tenant = d.strShared("tenant", felix.NameLenMax, known.tenants...)
		c.scope.Namespace = d.strShared("namespace", felix.NameLenMax, known.namespace)
		c.scope.Stream = d.strShared("stream", felix.NameLenMax, known.stream)
		c.scope.Shard = d.u32("shard")
		if d.err == nil {
			if err := c.scope.Validate(); err != nil {
				d.fail("%v", err)
			}
		}
	}
	decodeCommandBody(&d, &c)
	if err := d.done(); err != nil {
		return command{}, err
	}
	return c, nil
}

func decodeCommandBody(d *dec, c *command) {
	switch c.kind {
	case cmdWrite:
		raw := d.bytes("record", recordFrameLenMax)
		if d.err == nil {
			rec, err := wire.DecodeRecord(raw)
			if err != nil {
				d.fail("record: %v", err)
			}
			c.record = rec
		}
		if d.err == nil && d.off < len(d.b) {
			if c.generation = d.u32("generation"); d.err == nil && c.generation <= bootIncarnation.Generation {
				d.fail("write accepted in generation %d, which is encoded by its absence", c.generation)
			}
		}
	case cmdFetch:
		c.group = d.str("group", statemachine.GroupNameLenMax)
		c.nowNs = int64(d.u64("now"))
		c.leaseNs = int64(d.u64("lease"))
		c.entriesMax = d.u32("entries max")
	case cmdAck:
		c.group = d.str("group", statemachine.GroupNameLenMax)
		c.offset = d.u64("offset")
	case cmdRetain:
		c.offset = d.u64("offset")
	case cmdOutboxTrim:
		c.offset = d.u64("through offset")
	case cmdSetVersion:
		c.node = d.u64("node")
		c.version = d.u32("version")
	case cmdFinalize, cmdFeature:
		c.feature = d.str("feature", FeatureNameLenMax)
	case cmdStreamAdmin:
		c.scope.Namespace = d.str("namespace", felix.NameLenMax)
		c.scope.Stream = d.str("stream", felix.NameLenMax)
		c.generation = d.u32("generation")
		c.deleted = d.flag("deleted")
	case cmdIncarnation:
		c.generation = d.u32("generation")
		c.deleted = d.flag("deleted")
	}
}

// boolByte is a flag's encoding: 1 for true, 0 for false.
func boolByte(v bool) uint8 {
	if v {
		return 1
	}
	return 0
}
