package node

import (
	"errors"
	"fmt"
	"sort"

	"github.com/felixsim/felixsim/felix"
	"github.com/felixsim/felixsim/statemachine"
)

// Limits on the metadata a node decodes.
const (
	// FeaturesMax is the most finalized fleet features metadata may hold.
	FeaturesMax = 64
	// FeatureNameLenMax is the longest fleet-feature name, in bytes.
	FeatureNameLenMax = 64
	// StreamsMax is the most streams metadata may hold.
	StreamsMax = ShardGroupsMax
)

// BrokerVersionsMax caps the broker versions the metadata keeps. Every
// identity that ever reported a version keeps its entry (a replaced
// broker's too), so they can outnumber PeersMax. Overflow policy: a
// set-version for a further identity is refused.
const BrokerVersionsMax = 256

// BrokerVersion is one broker's reported software version.
type BrokerVersion struct {
	Node    uint64
	Version uint32
}

// Metadata is the metadata group's state: the streams (which fix the raft
// groups), every broker's software version and the finalized fleet
// features. It starts as the bootstrap (the metadata group's initial
// snapshot) and changes only by applying metadata commands.
type Metadata struct {
	Streams []StreamSpec
	// Incarnations[i] is Streams[i]'s incarnation (see streamadmin.go).
	Incarnations []StreamIncarnation
	// Versions are sorted by node id.
	Versions []BrokerVersion
	// Finalized are the finalized fleet features, sorted.
	Finalized []string
}

// newMetadata builds the bootstrap metadata for peers.
func newMetadata(b *Bootstrap, peers []uint64) *Metadata {
	m := &Metadata{Streams: append([]StreamSpec(nil), b.Streams...)}
	for range m.Streams {
		m.Incarnations = append(m.Incarnations, bootIncarnation)
	}
	for _, p := range peers {
		m.Versions = append(m.Versions, BrokerVersion{Node: p, Version: b.SoftwareVersion})
	}
	for _, f := range b.FinalizedFeatures {
		m.finalize(f)
	}
	return m
}

// IsFinalized reports whether feature is finalized.
func (m *Metadata) IsFinalized(feature string) bool {
	i := sort.SearchStrings(m.Finalized, feature)
	return i < len(m.Finalized) && m.Finalized[i] == feature
}

func (m *Metadata) finalize(feature string) {
	i := sort.SearchStrings(m.Finalized, feature)
	if i < len(m.Finalized) && m.Finalized[i] == feature {
		return
	}
	m.Finalized = append(m.Finalized, "")
	copy(m.Finalized[i+1:], m.Finalized[i:])
	m.Finalized[i] = feature
}

func (m *Metadata) setVersion(node uint64, version uint32) error {
	i := sort.Search(len(m.Versions), func(i int) bool { return m.Versions[i].Node >= node })
	if i < len(m.Versions) && m.Versions[i].Node == node {
		m.Versions[i].Version = version
		return nil
	}
	if len(m.Versions) >= BrokerVersionsMax {
		return fmt.Errorf("metadata group refused the version of broker %d: %d brokers' versions already kept (BrokerVersionsMax)", node, len(m.Versions))
	}
	m.Versions = append(m.Versions, BrokerVersion{})
	copy(m.Versions[i+1:], m.Versions[i:])
	m.Versions[i] = BrokerVersion{Node: node, Version: version}
	return nil
}

// apply applies one committed metadata command. A finalize is refused
// unless every one of peers reports a version that supports the feature
// (unless versionsUnchecked, the EarlyFinalize defect).
func (m *Metadata) apply(c *command, peers []uint64, versionsUnchecked bool) error {
	switch c.kind {
	case cmdSetVersion:
		return m.setVersion(c.node, c.version)
	case cmdStreamAdmin:
		return m.applyStreamAdmin(c)
	case cmdFinalize:
		if m.IsFinalized(c.feature) {
			return nil
		}
		if len(m.Finalized) >= FeaturesMax {
			return fmt.Errorf("%w: %q: %d features already finalized", ErrFinalizeRefused, c.feature, len(m.Finalized))
		}
		if err := m.checkFinalize(c.feature, peers); err != nil && !(versionsUnchecked && !errors.Is(err, errUnknownFeature)) {
			return err
		}
		m.finalize(c.feature)
	default:
		return fmt.Errorf("metadata group refused a %s command", c.kind)
	}
	return nil
}

// encodeMetadata is the metadata group's snapshot data.
func encodeMetadata(m *Metadata) []byte {
	var e enc
	e.u32(uint32(len(m.Streams)))
	for i := range m.Streams {
		s := &m.Streams[i]
		e.str(s.Namespace)
		e.str(s.Stream)
		e.u32(s.Shards)
		e.u8(uint8(s.Kind))
		for _, v := range []int{s.RetainedLenMax, s.ReplayWindowLenMax, s.GroupsMax, s.LeasesPerGroupMax} {
			e.u32(uint32(v))
		}
		e.u64(uint64(s.RetainedAgeMaxNs))
		e.u32(m.Incarnations[i].Generation)
		e.u8(boolByte(m.Incarnations[i].Deleted))
	}
	e.u32(uint32(len(m.Versions)))
	for _, v := range m.Versions {
		e.u64(v.Node)
		e.u32(v.Version)
	}
	e.u32(uint32(len(m.Finalized)))
	for _, f := range m.Finalized {
		e.str(f)
	}
	return e.b
}

// decodeMetadata strictly decodes encodeMetadata's output and validates it.
func decodeMetadata(p []byte) (*Metadata, error) {
	d := dec{b: p}
	m := &Metadata{}
	m.Streams = make([]StreamSpec, d.count("streams", StreamsMax, 42))
	m.Incarnations = make([]StreamIncarnation, len(m.Streams))
	for i := range m.Streams {
		s := &m.Streams[i]
		s.Namespace = d.str("namespace", felix.NameLenMax)
		s.Stream = d.str("stream", felix.NameLenMax)
		s.Shards = d.u32("shards")
		s.Kind = statemachine.StreamKind(d.u8("kind"))
		for _, v := range []*int{&s.RetainedLenMax, &s.ReplayWindowLenMax, &s.GroupsMax, &s.LeasesPerGroupMax} {
			*v = int(d.u32("cap"))
		}
		s.RetainedAgeMaxNs = int64(d.u64("retained age"))
		m.Incarnations[i] = StreamIncarnation{Generation: d.u32("generation"), Deleted: d.flag("deleted")}
		if g := m.Incarnations[i].Generation; d.err == nil && (g < 1 || g > GenerationsMax) {
			d.fail("stream %s/%s generation %d, want 1..%d", s.Namespace, s.Stream, g, GenerationsMax)
		}
	}
	m.Versions = make([]BrokerVersion, d.count("versions", BrokerVersionsMax, 12))
	for i := range m.Versions {
		m.Versions[i] = BrokerVersion{Node: d.u64("node"), Version: d.u32("version")}
		if d.err == nil && i > 0 && m.Versions[i].Node <= m.Versions[i-1].Node {
			d.fail("broker versions not in ascending node order")
		}
	}
	m.Finalized = make([]string, d.count("features", FeaturesMax, 4))
	for i := range m.Finalized {
		m.Finalized[i] = d.str("feature", FeatureNameLenMax)
		if d.err == nil && i > 0 && m.Finalized[i] <= m.Finalized[i-1] {
			d.fail("features not in strictly ascending order")
		}
	}
	if err := d.done(); err != nil {
		return nil, err
	}
	b := Bootstrap{Streams: m.Streams}
	if err := b.validateStreams(); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	return m, nil
}
