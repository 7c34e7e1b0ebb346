package modeltrace

// Recorder is a Sink that keeps a copy of every step, in order.
type Recorder struct {
	Steps []Step
}

// Step copies s and its slices.
func (r *Recorder) Step(s *Step) { r.Steps = append(r.Steps, s.Clone()) }

// Clone returns a copy of s that shares no memory with it.
func (s *Step) Clone() Step {
	c := *s
	c.Entries = append([]Entry(nil), s.Entries...)
	c.Scopes = append([]ScopeNext(nil), s.Scopes...)
	c.Asked, c.Proposed = s.Asked.Clone(), s.Proposed.Clone()
	if s.Change != nil {
		ch := *s.Change
		c.Change = &ch
	}
	c.Voters = append([]uint64(nil), s.Voters...)
	c.Learners = append([]uint64(nil), s.Learners...)
	c.Records = append([]uint64(nil), s.Records...)
	return c
}

// Replay passes each step to sink in order.
func Replay(steps []Step, sink Sink) {
	for i := range steps {
		sink.Step(&steps[i])
	}
}

// Tee is a Sink that passes every step to each of its sinks, in order.
type Tee []Sink

// Step passes s to each sink.
func (t Tee) Step(s *Step) {
	for _, k := range t {
		k.Step(s)
	}
}
