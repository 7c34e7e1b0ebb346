package statemachine

import "github.com/felixsim/felixsim/felix"

// Shard is one stream shard's state: the retained log (whose newest
// records form the replay window), the keyed state view and the consumer
// groups. Every method is a deterministic function of the shard and its
// arguments; replicas that apply the same commands in the same order end
// equal. A Shard is not safe for concurrent use.
type Shard struct {
	cfg    Config
	log    retainedLog
	state  keyedState
	groups groupTable
	// keysDropped counts keys forgotten by retention (see KeysDropped).
	keysDropped uint64
	// changes are the state keys and groups changed lately (changes.go).
	changes changeRing
}

// New returns an empty shard whose first record will be written at offset 0.
func New(cfg Config) (*Shard, error) {
	return newAt(cfg, 0)
}

func newAt(cfg Config, startOffset uint64) (*Shard, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	s := &Shard{
		cfg:    cfg,
		log:    newRetainedLog(cfg.RetainedLenMax, startOffset),
		state:  newKeyedState(),
		groups: newGroupTable(),
	}
	s.state.changes = &s.changes
	return s, nil
}

// Config returns the configuration the shard was built with.
func (s *Shard) Config() Config { return s.cfg }

// NextOffset is the shard's tail: the offset the next written record gets.
func (s *Shard) NextOffset() uint64 { return s.log.nextOffset }

// FirstOffset is the offset of the oldest retained record (equal to
// NextOffset when nothing is retained).
func (s *Shard) FirstOffset() uint64 { return s.log.firstOffset }

// StateGet returns key's value and version, with found false if the key is
// absent. The value is shared with the shard: do not modify it.
func (s *Shard) StateGet(key string) (value []byte, version uint64, found bool) {
	v, ok := s.state.m[key]
	return v.Value, v.Version, ok
}

// StateLen is the number of keys in the state view.
func (s *Shard) StateLen() int { return len(s.state.m) }

// State lists the state view in ascending key order.
func (s *Shard) State() []KeyValue { return s.state.list() }

// Retained returns the retained log, oldest first. The records share their
// buffers with the shard: do not modify them.
func (s *Shard) Retained() []felix.Entry {
	out := make([]felix.Entry, 0, s.log.count)
	for o := s.log.firstOffset; o < s.log.nextOffset; o++ {
		out = append(out, *s.log.at(o))
	}
	return out
}
