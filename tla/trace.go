package tla

import (
	"fmt"
	"io"
	"strings"
)

// Step is one step of a counterexample: the action taken and the
// variables it changed, rendered as the TLA+ spec would show them.
type Step struct {
	Action  string   `json:"action"`
	Changes []Change `json:"changes"`
}

// Change is one variable's new value after a step.
type Change struct {
	Var   string `json:"var"`
	Value string `json:"value"`
}

// namedValue is one TLA+ variable (per broker or per commit) rendered.
type namedValue struct{ name, value string }

// render lists the state's variables in a fixed order.
func (m *model) render(s *State) []namedValue {
	out := []namedValue{
		{"nextCid", fmt.Sprint(s.nextCid)},
	}
	for b := 0; b < m.cfg.Brokers; b++ {
		br, n := &s.b[b], brokerNames[b]
		out = append(out,
			namedValue{"term[" + n + "]", fmt.Sprint(br.term)},
			namedValue{"votedFor[" + n + "]", voteName(br.votedFor)},
			namedValue{"role[" + n + "]", roleNames[br.role]},
			namedValue{"votes[" + n + "]", formatSet(br.votes, m.cfg.Brokers)},
			namedValue{"acked[" + n + "]", formatAcks(br.acked, m.cfg.Brokers)},
			namedValue{"log[" + n + "]", formatSeq(br.logSeq())},
			namedValue{"durable[" + n + "]", fmt.Sprint(br.durable)},
			namedValue{"commitIndex[" + n + "]", fmt.Sprint(br.commit)},
			namedValue{"applied[" + n + "]", fmt.Sprint(br.applied)},
			namedValue{"shard[" + n + "]", formatSeq(br.shardSeq())},
			namedValue{"kv[" + n + "]", formatView(br.kv)},
			namedValue{"mid[" + n + "]", fmt.Sprint(br.mid)},
			namedValue{"conf[" + n + "]", fmt.Sprintf("[at |-> %d, voters |-> %s, learners |-> %s]", br.confAt, formatSet(br.voters, m.cfg.Brokers), formatSet(br.learners, m.cfg.Brokers))},
		)
	}
	out = append(out, namedValue{"nconf", fmt.Sprint(s.nconf)})
	for c := 0; c < m.cfg.MaxCommits; c++ {
		out = append(out, namedValue{"reply[" + commitNames[c+1] + "]", formatAnswer(s.reply[c])})
	}
	return out
}

// diff lists the variables whose rendering differs between two states.
func (m *model) diff(prev, next *State) []Change {
	b := m.render(next)
	var a []namedValue
	if prev != nil {
		a = m.render(prev)
	}
	var out []Change
	for i := range b {
		if prev == nil || a[i].value != b[i].value {
			out = append(out, Change{Var: b[i].name, Value: b[i].value})
		}
	}
	return out
}

func voteName(v uint8) string {
	if v == 0 {
		return "None"
	}
	return brokerNames[v-1]
}

// formatSet renders a bit set of brokers, e.g. {b1, b3}.
func formatSet(set uint8, n int) string {
	var parts []string
	for q := 0; q < n; q++ {
		if set&(1<<q) != 0 {
			parts = append(parts, brokerNames[q])
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// formatAcks renders a leader's acknowledged indexes, e.g. (b1 :> 0 @@ b2 :> 2 @@ b3 :> 0).
func formatAcks(acked [BrokersMax]uint8, n int) string {
	parts := make([]string, n)
	for q := 0; q < n; q++ {
		parts[q] = fmt.Sprintf("%s :> %d", brokerNames[q], acked[q])
	}
	return "(" + strings.Join(parts, " @@ ") + ")"
}

// formatProposal renders a log entry or record, e.g. [t1 c2 commit_if@2]
// (term omitted for a shard record, part shown when not whole).
func formatProposal(p proposal) string {
	var b strings.Builder
	b.WriteByte('[')
	if p.term != 0 {
		fmt.Fprintf(&b, "t%d ", p.term)
	}
	if p.kind == kindConf {
		fmt.Fprintf(&b, "conf voters %s learners %s]", formatSet(p.voters, BrokersMax), formatSet(p.learners, BrokersMax))
		return b.String()
	}
	if isEmptyEntry(p) {
		b.WriteString("empty]")
		return b.String()
	}
	b.WriteString(commitNames[p.cid])
	if p.kind == kindCommitIf {
		fmt.Fprintf(&b, " commit_if@%d", p.exp)
	} else {
		b.WriteString(" commit")
	}
	switch p.part {
	case partEvent:
		b.WriteString(" event-part")
	case partState:
		b.WriteString(" state-part")
	}
	b.WriteByte(']')
	return b.String()
}

func formatSeq(ps []proposal) string {
	parts := make([]string, len(ps))
	for i, p := range ps {
		parts[i] = formatProposal(p)
	}
	return "<<" + strings.Join(parts, ", ") + ">>"
}

func formatView(kv [keysMax]slot) string {
	parts := make([]string, keysMax)
	for k, sl := range kv {
		if sl.val == 0 {
			parts[k] = keyNames[k] + "=absent"
		} else {
			parts[k] = fmt.Sprintf("%s=%s@%d", keyNames[k], commitNames[sl.val], sl.ver)
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

func formatAnswer(a answer) string {
	switch a.st {
	case replyWritten:
		return fmt.Sprintf("written at offset %d (raft index %d, term %d)", a.at, a.idx, a.term)
	case replyRefused:
		return fmt.Sprintf("refused, tail %d, expected %d (raft index %d, term %d)", a.at, a.exp, a.idx, a.term)
	}
	return "none"
}

// WriteTrace prints a counterexample one step per paragraph: the step
// number, the action, and each changed variable.
func WriteTrace(w io.Writer, trace []Step) error {
	for i, st := range trace {
		if _, err := fmt.Fprintf(w, "  %d: %s\n", i+1, st.Action); err != nil {
			return err
		}
		for _, c := range st.Changes {
			if _, err := fmt.Fprintf(w, "       %s = %s\n", c.Var, c.Value); err != nil {
				return err
			}
		}
	}
	return nil
}
