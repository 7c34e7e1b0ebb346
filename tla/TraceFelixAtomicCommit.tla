----------------------- MODULE TraceFelixAtomicCommit -----------------------
(***************************************************************************)
(* Trace validation by TLC: the abstract trace of one raft group of a      *)
(* felixsim run (package modeltrace; `felixsim run --trace-out`) is the    *)
(* constant Trace, and this spec's behaviours follow it step by step.  A   *)
(* state holds FelixAtomicCommit's variables for the group, refined where  *)
(* a real broker is finer than that model (tla/README.md, "Trace           *)
(* validation"): every broker has its own term and leadership (leads),     *)
(* votes are kept per term with the voter's log, the entries leaders       *)
(* appended are kept as the messages they send (proposed), the brokers'    *)
(* acknowledgements of the entries they persisted as messages too (acks),  *)
(* and each scope                                                          *)
(* (tenant) of the shard has its own applied shard log, of which the state *)
(* keeps the next offset per broker and the raft index written at each     *)
(* offset (written).                                                       *)
(*                                                                         *)
(* Step i of the trace is taken only by the action that explains it, and   *)
(* only if that action is enabled in the current state: a trace no         *)
(* behaviour of the spec follows leaves TLC in a state with no successor,  *)
(* reported as a deadlock whose last state has i = the refused step.  A    *)
(* trace followed to its end stutters in Done, and TLC finds no error.     *)
(* Membership: each broker's configuration (conf) is the one its applied  *)
(* membership changes give, from the bootstrap voters 1..NBrokers; a new  *)
(* identity (in Ids, past NBrokers) starts with an empty log and no       *)
(* configuration and catches up by snapshot.  Elections and commits count *)
(* only the deciding broker's voters; learners replicate but do not count. *)
(* A Restart is the model's Crash followed by its hidden steps (the log's  *)
(* re-apply up to the stored applied index), taken as one step; so is a    *)
(* Snapshot (a leader's committed prefix installed, and its applies).      *)
(*                                                                         *)
(* The Go mirror of this spec is tla.TraceValidator (trace*.go); the make  *)
(* target tlc-trace runs both on the same trace and requires the same      *)
(* verdict at the same step.                                               *)
(***************************************************************************)
EXTENDS Integers, Sequences, FiniteSets, TLC

CONSTANTS
    NBrokers,  \* the brokers that bootstrapped the cluster, numbered 1..NBrokers
    Ids,       \* every broker identity the trace names: 1..NBrokers and later joiners
    Tenants,   \* the scopes (tenants) the trace names
    Trace      \* the steps, records with every field (generated, see README)

ASSUME 1..NBrokers \subseteq Ids
Brokers == Ids
Peers == 1..NBrokers
BootConf == [voters |-> Peers, learners |-> {}]
NoConf == [voters |-> {}, learners |-> {}]
Entry(t, d) == [term |-> t, data |-> d]
Bootstrap == Entry(1, 0)
NoWrite == [tenant |-> "", kind |-> "none", cond |-> FALSE, exp |-> 0, ops |-> 0, dig |-> 0, sops |-> << >>]
ReadKinds == {"StateRead", "SubscriberRead"}
WriteKinds == {"publish", "publish_if", "enqueue", "commit", "commit_if"}
QuorumOf(S, m) == 2 * Cardinality(S \cap m.voters) > Cardinality(m.voters)
Min(a, b) == IF a < b THEN a ELSE b
MaxOf(S) == CHOOSE x \in S : \A y \in S : y <= x
LastTerm(l) == IF l = << >> THEN 0 ELSE l[Len(l)].term

VARIABLES
    i,          \* the next trace step to take (Len(Trace) + 1: done)
    up,         \* up[b]: b has started (its first Restart)
    log,        \* log[b]: b's stored raft log, entries [term, data]; index 1 is the bootstrap snapshot
    commit,     \* commit[b]: the commit mark b knows
    applied,    \* applied[b]: the last index b applied
    term,       \* term[b]: the newest term b voted in (a lower bound of its current term)
    leads,      \* leads[b]: the term b leads (0: none)
    next,       \* next[b][t]: the next offset of scope t on b
    proposed,   \* <<term, index>> -> [data, prev]: the entries leaders appended (the messages)
    writes,     \* data -> [b, client, req, w]: the client writes proposed (the commit table)
    committed,  \* the longest committed prefix any broker knows
    votes,      \* <<term, voter>> -> [cand, lastTerm, len]: a vote and the voter's log then
    acks,       \* the set of <<term, index, b>>: b persisted entry (term, index) and acknowledged it
    leaders,    \* term -> the broker that leads it
    written,    \* written[t][o + 1]: the raft index written at offset o of scope t
    answers,    \* [b, client, req, outcome, off]: what applying gave a proposer to answer
    conf,       \* conf[b]: [voters, learners], the configuration b's applied changes give
    confs,      \* data -> [type, node]: the membership changes leaders proposed
    outcomes,   \* index -> [outcome, off]: what the first Apply of a raft index gave
    cterm,      \* cterm[x]: the term of the leader that committed committed[x]
    acked,      \* the writes a broker acknowledged as written: [idx, e, cterm, vs]
    seen        \* the step number of the read just taken (0: the last step read nothing)

vars == <<i, up, log, commit, applied, term, leads, next, proposed, writes, committed, votes, acks, leaders, written, answers, conf, confs, outcomes, cterm, acked, seen>>

(* Simple membership changes, as raft folds them; one leaving no voter is  *)
(* refused, and the configuration stays.                                   *)
Fold(m, c) ==
    LET v == m.voters \ {c.node}
        l == m.learners \ {c.node}
        r == CASE c.type = "add_voter" -> [voters |-> v \cup {c.node}, learners |-> l]
               [] c.type = "add_learner" -> [voters |-> v, learners |-> l \cup {c.node}]
               [] OTHER -> [voters |-> v, learners |-> l]
    IN IF r.voters = {} THEN m ELSE r

(* The configuration of a broker holding log l once it applied up to x:    *)
(* the bootstrap one with the changes in l[2..x] folded in.               *)
RECURSIVE ConfFrom(_, _, _, _)
ConfFrom(m, l, j, x) ==
    IF j > x \/ j > Len(l) THEN m
    ELSE ConfFrom(IF l[j].data /= 0 /\ l[j].data \in DOMAIN confs THEN Fold(m, confs[l[j].data]) ELSE m, l, j + 1, x)
ConfAt(l, x) == ConfFrom(BootConf, l, 2, x)

Init ==
    /\ i = 1
    /\ up = [b \in Brokers |-> FALSE]
    /\ log = [b \in Brokers |-> IF b \in Peers THEN << Bootstrap >> ELSE << >>]
    /\ commit = [b \in Brokers |-> IF b \in Peers THEN 1 ELSE 0]
    /\ applied = [b \in Brokers |-> IF b \in Peers THEN 1 ELSE 0]
    /\ term = [b \in Brokers |-> 0]
    /\ leads = [b \in Brokers |-> 0]
    /\ next = [b \in Brokers |-> [t \in Tenants |-> 0]]
    /\ proposed = << >>
    /\ writes = << >>
    /\ committed = << Bootstrap >>
    /\ votes = << >>
    /\ acks = {}
    /\ leaders = << >>
    /\ written = [t \in Tenants |-> << >>]
    /\ answers = << >>
    /\ conf = [b \in Brokers |-> IF b \in Peers THEN BootConf ELSE NoConf]
    /\ confs = << >>
    /\ outcomes = << >>
    /\ cterm = << 0 >>
    /\ acked = {}
    /\ seen = 0

(* Every action takes step s = Trace[i] and moves on to the next.          *)
Taken == i' = i + 1

Sent(k) == k \in DOMAIN proposed
LeaderOf(t) == IF t \in DOMAIN leaders THEN leaders[t] ELSE 0

(* The next offsets re-applying the log up to index a gives each scope.    *)
Rebuilt(a) == [t \in Tenants |-> Cardinality({o \in 1..Len(written[t]) : written[t][o] <= a})]

(* The scopes a step reports match the next offsets nx re-applying the   *)
(* log gives, and name every scope with records.                          *)
ScopesMatch(sc, nx) ==
    /\ \A j \in 1..Len(sc) : sc[j].next = nx[sc[j].tenant]
    /\ Cardinality({j \in 1..Len(sc) : sc[j].next > 0}) = Cardinality({t \in Tenants : nx[t] > 0})

(* Crash(b), then the hidden steps that rebuild b from its store: the      *)
(* stored log starts at a snapshot (the bootstrap one at index 1, or a     *)
(* compaction point b had applied) of an entry b held, and keeps every     *)
(* persisted entry after it (extra ones only entries a leader sent, or     *)
(* b's own of a term it led); the compacted prefix stays the model's log;  *)
(* the stored commit mark was committed; re-applying the log up to the     *)
(* stored applied index gives each scope's rebuilt next offset.            *)
Restart(s) ==
    LET b == s.b
        x0 == s.idx
        old == log[b]
        st == SubSeq(old, 1, x0) \o Tail(s.entries)
        fresh == {x \in (Len(old) + 1)..Len(st) :
                    ~(Sent(<<st[x].term, x>>) /\ proposed[<<st[x].term, x>>].data = st[x].data)}
        c == s.commit
        a == s.applied
        nx == Rebuilt(a)
    IN /\ s.kind = "Restart"
       /\ Len(s.entries) > 0 /\ x0 >= 1 /\ x0 <= Len(old)
       /\ s.entries[1].term = old[x0].term
       /\ \A x \in 2..Len(st) : st[x].term >= st[x - 1].term
       /\ x0 > 1 => x0 <= applied[b]
       /\ Len(st) >= Len(old) /\ SubSeq(st, 1, Len(old)) = old
       /\ \A x \in fresh : LeaderOf(st[x].term) = b
       /\ c <= Len(st)
       /\ c > commit[b] => c <= Len(committed) /\ committed[c] = st[c]
       /\ a <= c
       /\ ScopesMatch(s.scopes, nx)
       /\ proposed' = proposed @@ [k \in {<<st[x].term, x>> : x \in fresh} |-> [data |-> st[k[2]].data, prev |-> st[k[2] - 1].term]]
       /\ acks' = acks \cup {<<st[x].term, x, b>> : x \in (Len(old) + 1)..Len(st)}
       /\ up' = [up EXCEPT ![b] = TRUE]
       /\ leads' = [leads EXCEPT ![b] = 0]
       /\ log' = [log EXCEPT ![b] = st]
       /\ commit' = [commit EXCEPT ![b] = c]
       /\ applied' = [applied EXCEPT ![b] = a]
       /\ next' = [next EXCEPT ![b] = nx]
       /\ conf' = [conf EXCEPT ![b] = ConfAt(st, a)]
       /\ LET Others(r) == r.b /= b IN answers' = SelectSeq(answers, Others)
       /\ UNCHANGED <<term, writes, committed, votes, leaders, written, confs, outcomes, cterm, acked>>

(* The Restart of an identity that joined with an empty log and holds none *)
(* yet: nothing stored, committed or applied.                              *)
RestartEmpty(s) ==
    LET b == s.b IN
    /\ s.kind = "Restart"
    /\ log[b] = << >> /\ s.idx = 0
    /\ s.entries = << Entry(0, 0) >> /\ s.commit = 0 /\ s.applied = 0 /\ s.scopes = << >>
    /\ up' = [up EXCEPT ![b] = TRUE]
    /\ leads' = [leads EXCEPT ![b] = 0]
    /\ LET Others(r) == r.b /= b IN answers' = SelectSeq(answers, Others)
    /\ UNCHANGED <<log, commit, applied, term, next, proposed, writes, committed, votes, acks, leaders, written, conf, confs, outcomes, cterm, acked>>

(* A leader's snapshot installed on b: Replicate of the committed prefix   *)
(* up to the snapshot's entry, then the hidden applies.  The entry is      *)
(* committed and past b's commit mark; b's log becomes that prefix,        *)
(* applied there, its scopes what re-applying it gives.                    *)
Snapshot(s) ==
    LET b == s.b
        x == s.idx
        nx == Rebuilt(x)
    IN /\ s.kind = "Snapshot"
       /\ x >= 1 /\ x <= Len(committed) /\ committed[x].term = s.term
       /\ x > commit[b]
       /\ ScopesMatch(s.scopes, nx)
       /\ log' = [log EXCEPT ![b] = SubSeq(committed, 1, x)]
       /\ commit' = [commit EXCEPT ![b] = x]
       /\ applied' = [applied EXCEPT ![b] = x]
       /\ next' = [next EXCEPT ![b] = nx]
       /\ conf' = [conf EXCEPT ![b] = ConfAt(committed, x)]
       /\ UNCHANGED <<up, term, leads, proposed, writes, committed, votes, acks, leaders, written, answers, confs, outcomes, cterm, acked>>

(* b persists its vote: for itself, Timeout(b) (b starts an election in    *)
(* that term as a candidate); for another, Vote(b, cand) (b grants the     *)
(* candidate's request).  One vote per broker and term, never in a term    *)
(* older than one b voted in; a leader of an older term steps down.        *)
VoteOK(s) ==
    LET b == s.b
        k == <<s.term, b>>
    IN /\ s.kind = "Vote"
       /\ k \in DOMAIN votes => votes[k].cand = s.cand
       /\ s.term >= term[b]
       /\ votes' = (k :> [cand |-> s.cand, lastTerm |-> LastTerm(log[b]), len |-> Len(log[b])]) @@ votes
       /\ term' = [term EXCEPT ![b] = s.term]
       /\ leads' = [leads EXCEPT ![b] = IF @ /= 0 /\ @ < s.term THEN 0 ELSE @]
       /\ UNCHANGED <<up, log, commit, applied, next, proposed, writes, committed, acks, leaders, written, answers, conf, confs, outcomes, cterm, acked>>

(* Only a voter of its own configuration starts an election.               *)
Timeout(s) == s.cand = s.b /\ s.b \in conf[s.b].voters /\ VoteOK(s)
Vote(s) == s.cand /= s.b /\ VoteOK(s)

(* Promote(b): b started an election in the term (it voted for itself      *)
(* there) and has voted in no newer one (a broker's term never goes back); *)
(* one leader per term; a quorum voted for b, each finding b's log at      *)
(* least as up to date as its own when it voted.                           *)
Promote(s) ==
    LET b == s.b
        UpToDate(r) == LastTerm(log[b]) > r.lastTerm \/ (LastTerm(log[b]) = r.lastTerm /\ Len(log[b]) >= r.len)
        voters == {q \in Brokers : /\ <<s.term, q>> \in DOMAIN votes
                                   /\ votes[<<s.term, q>>].cand = b
                                   /\ UpToDate(votes[<<s.term, q>>])}
    IN /\ s.kind = "Promote"
       /\ s.term \notin DOMAIN leaders
       /\ s.term >= term[b]
       /\ <<s.term, b>> \in DOMAIN votes /\ votes[<<s.term, b>>].cand = b
       /\ QuorumOf(voters, conf[b])
       /\ leaders' = (s.term :> b) @@ leaders
       /\ leads' = [leads EXCEPT ![b] = s.term]
       /\ term' = [term EXCEPT ![b] = IF s.term > @ THEN s.term ELSE @]
       /\ UNCHANGED <<up, log, commit, applied, next, proposed, writes, committed, votes, acks, written, answers, conf, confs, outcomes, cterm, acked>>

(* Propose, its client half: the proposal is the client's write unchanged  *)
(* (its state operations listed, as many as it counts), proposed in a term *)
(* no older than one the broker voted or led in.                           *)
Request(s) ==
    /\ s.kind = "Request"
    /\ s.asked /= NoWrite /\ s.asked = s.proposed
    /\ Len(s.proposed.sops) = s.proposed.ops
    /\ s.term >= term[s.b]
    /\ s.data /= 0
    /\ s.data \notin DOMAIN writes
    /\ writes' = (s.data :> [b |-> s.b, client |-> s.client, req |-> s.req, w |-> s.proposed]) @@ writes
    /\ UNCHANGED <<up, log, commit, applied, term, leads, next, proposed, committed, votes, acks, leaders, written, answers, conf, confs, outcomes, cterm, acked>>

(* Reconfigure, the leader's half: the leader of the change's term appends *)
(* a simple membership change, once it applied every entry of an older    *)
(* term and every change its log holds (raft's pending-change guard).     *)
ProposeConf(s) ==
    LET b == s.b IN
    /\ s.kind = "ProposeConf"
    /\ leads[b] = s.term /\ LeaderOf(s.term) = b
    /\ s.data /= 0
    /\ s.change.type \in {"add_voter", "add_learner", "remove"}
    /\ s.data \in DOMAIN confs => confs[s.data] = s.change
    /\ \A x \in (applied[b] + 1)..Len(log[b]) :
          log[b][x].term >= s.term /\ ~(log[b][x].data /= 0 /\ log[b][x].data \in DOMAIN confs)
    /\ confs' = (s.data :> s.change) @@ confs
    /\ UNCHANGED <<up, log, commit, applied, term, leads, next, proposed, writes, committed, votes, acks, leaders, written, answers, conf, outcomes, cterm, acked>>

(* Apply(b) of a membership change: b's next committed entry, a change a   *)
(* leader proposed; b's configuration becomes the change folded into its   *)
(* own, and the broker reports exactly that.                               *)
ApplyConf(s) ==
    LET b == s.b
        x == s.idx
        m == Fold(conf[b], confs[s.data])
    IN /\ s.kind = "ApplyConf"
       /\ x = applied[b] + 1
       /\ x <= commit[b]
       /\ log[b][x] = Entry(s.term, s.data)
       /\ s.data /= 0 /\ s.data \in DOMAIN confs
       /\ m = [voters |-> s.voters, learners |-> s.learners]
       /\ applied' = [applied EXCEPT ![b] = x]
       /\ conf' = [conf EXCEPT ![b] = m]
       /\ UNCHANGED <<up, log, commit, term, leads, next, proposed, writes, committed, votes, acks, leaders, written, answers, confs, outcomes, cterm, acked>>

(* A Persist of entries es from index s.idx on: each entry either is one a *)
(* leader sent, with the previous entry's term it had (Replicate), or is   *)
(* b's own new entry of the term it leads, a client's write or empty       *)
(* (Propose); terms never decrease along the log; the conflicting suffix   *)
(* dropped holds no committed entry.                                       *)
PersistOK(s) ==
    LET b == s.b
        from == s.idx
        es == s.entries
        old == log[b]
        Prev(j) == IF j = 1 THEN old[from - 1].term ELSE es[j - 1].term
        Key(j) == <<es[j].term, from + j - 1>>
        Diff(x) == x - from + 1 > Len(es) \/ es[x - from + 1] /= old[x]
        firstDiff == {x \in from..Len(old) : Diff(x) /\ \A y \in from..(x - 1) : ~Diff(y)}
    IN /\ s.kind = "Persist"
       /\ from >= 2 /\ from <= Len(old) + 1
       /\ \A j \in 1..Len(es) : es[j].term >= Prev(j)
       /\ \A j \in 1..Len(es) : Sent(Key(j)) => proposed[Key(j)] = [data |-> es[j].data, prev |-> Prev(j)]
       /\ \A j \in 1..Len(es) : ~Sent(Key(j)) =>
             /\ leads[b] = es[j].term /\ LeaderOf(es[j].term) = b
             /\ es[j].data = 0 \/ es[j].data \in DOMAIN writes \/ es[j].data \in DOMAIN confs
       /\ \A x \in firstDiff : ~(x <= Len(committed) /\ old[x] = committed[x])

PersistTake(s) ==
    LET b == s.b
        from == s.idx
        es == s.entries
        Prev(j) == IF j = 1 THEN log[b][from - 1].term ELSE es[j - 1].term
        fresh == {j \in 1..Len(es) : ~Sent(<<es[j].term, from + j - 1>>)}
        nl == SubSeq(log[b], 1, from - 1) \o es
    IN /\ proposed' = proposed @@ [k \in {<<es[j].term, from + j - 1>> : j \in fresh} |->
                                     [data |-> es[k[2] - from + 1].data, prev |-> Prev(k[2] - from + 1)]]
       /\ log' = [log EXCEPT ![b] = nl]
       /\ commit' = [commit EXCEPT ![b] = Min(@, Len(nl))]
       /\ acks' = acks \cup {<<es[j].term, from + j - 1, b>> : j \in 1..Len(es)}
       /\ UNCHANGED <<up, applied, term, leads, next, writes, committed, votes, leaders, written, answers, conf, confs, outcomes, cterm, acked>>

FreshIn(s) == \E j \in 1..Len(s.entries) : ~Sent(<<s.entries[j].term, s.idx + j - 1>>)

(* Propose then Persist: the persisted entries include b's own new ones.   *)
Propose(s) == PersistOK(s) /\ FreshIn(s) /\ PersistTake(s)

(* Replicate then Persist: every entry is one a leader sent.               *)
Replicate(s) == PersistOK(s) /\ ~FreshIn(s) /\ PersistTake(s)

CommitOK(s) ==
    LET c == s.idx IN
    /\ s.kind = "Commit"
    /\ c >= commit[s.b] /\ c >= 1
    /\ c <= Len(log[s.b])

Learned(s) == s.idx <= Len(committed) /\ committed[s.idx] = log[s.b][s.idx]

(* Replicate's commit mark: a leader committed the prefix b's log holds.   *)
LearnCommit(s) ==
    /\ CommitOK(s)
    /\ Learned(s)
    /\ commit' = [commit EXCEPT ![s.b] = s.idx]
    /\ UNCHANGED <<up, log, applied, term, leads, next, proposed, writes, committed, votes, acks, leaders, written, answers, conf, confs, outcomes, cterm, acked>>

(* AdvanceCommit: b leads the term of the entry at the mark, a quorum of   *)
(* b's voters acknowledged storing that entry (followers acknowledge once they *)
(* persisted it; b counts its own disk), and b's log extends the committed *)
(* prefix.                                                                 *)
AdvanceCommit(s) ==
    LET b == s.b
        c == s.idx
        e == log[b][c]
        n == Len(committed)
        holders == {q \in Brokers : <<e.term, c, q>> \in acks}
    IN /\ CommitOK(s)
       /\ ~Learned(s)
       /\ leads[b] /= 0 /\ e.term = leads[b]
       /\ QuorumOf(holders, conf[b])
       /\ c > n /\ log[b][n] = committed[n]
       /\ committed' = committed \o SubSeq(log[b], n + 1, c)
       /\ cterm' = cterm \o [j \in 1..(c - n) |-> leads[b]]
       /\ commit' = [commit EXCEPT ![b] = c]
       /\ UNCHANGED <<up, log, applied, term, leads, next, proposed, writes, votes, acks, leaders, written, answers, conf, confs, outcomes, acked>>

(* Apply(b): b applies its next committed entry.  A client write is        *)
(* written at its scope's next offset unless it is conditional and         *)
(* expected another offset, then refused with that tail; one record or     *)
(* none; every replica writes the same entry at the same offset, and every *)
(* Apply of an index gives what the first gave (outcomes).  A              *)
(* consumer-group command, an empty entry or a write refused with an       *)
(* error writes nothing.                                                   *)
Apply(s) ==
    LET b == s.b
        x == s.idx
    IN /\ s.kind = "Apply"
       /\ x = applied[b] + 1
       /\ x <= commit[b]
       /\ log[b][x] = Entry(s.term, s.data)
       /\ s.data = 0 => s.outcome = "none"
       /\ s.data /= 0 => s.data \in DOMAIN writes
       /\ x \in DOMAIN outcomes => outcomes[x] = [outcome |-> s.outcome, off |-> s.off]
       /\ outcomes' = IF x \in DOMAIN outcomes THEN outcomes ELSE (x :> [outcome |-> s.outcome, off |-> s.off]) @@ outcomes
       /\ applied' = [applied EXCEPT ![b] = x]
       /\ IF s.data = 0 \/ writes[s.data].w.kind \notin WriteKinds \/ s.outcome = "error"
          THEN /\ s.outcome \in {"none", "error"}
               /\ UNCHANGED <<next, written, answers>>
          ELSE LET wr == writes[s.data]
                   w == wr.w
                   nx == next[b][w.tenant]
                   want == IF w.cond /\ w.exp /= nx THEN "refused" ELSE "written"
                   ws == written[w.tenant]
               IN /\ s.outcome = want /\ s.off = nx
                  /\ IF want = "written"
                     THEN /\ Len(ws) = nx \/ (Len(ws) > nx /\ ws[nx + 1] = x)
                          /\ written' = [written EXCEPT ![w.tenant] = IF Len(ws) = nx THEN Append(ws, x) ELSE ws]
                          /\ next' = [next EXCEPT ![b][w.tenant] = nx + 1]
                     ELSE UNCHANGED <<next, written>>
                  /\ answers' = IF wr.b = b
                                THEN Append(answers, [b |-> b, client |-> wr.client, req |-> wr.req, outcome |-> s.outcome, off |-> s.off, idx |-> x])
                                ELSE answers
       /\ UNCHANGED <<up, log, commit, term, leads, proposed, writes, committed, votes, acks, leaders, conf, confs, cterm, acked>>

(* The voter sets a quorum holding the entry at index x may be counted in: *)
(* the bootstrap one and those the membership changes committed before x  *)
(* give (the model's VotersBefore).                                       *)
RECURSIVE VoterSetsFrom(_, _, _, _)
VoterSetsFrom(m, j, x, acc) ==
    IF j >= x THEN acc
    ELSE LET m2 == IF committed[j].data /= 0 /\ committed[j].data \in DOMAIN confs THEN Fold(m, confs[committed[j].data]) ELSE m
         IN VoterSetsFrom(m2, j + 1, x, acc \cup {m2.voters})
VoterSetsBefore(x) == VoterSetsFrom(BootConf, 2, x, {Peers})

(* Answer: the proposer answers a client only with what applying the       *)
(* client's entry gave it (each such result answers once).  A write        *)
(* answered as written is acknowledged: CommittedNeverLost's record of its *)
(* entry, the term that committed it and the voter sets of its quorum.     *)
Answer(s) ==
    LET Match(r) == r.b = s.b /\ r.client = s.client /\ r.req = s.req /\ r.outcome = s.outcome /\ r.off = s.off
        js == {j \in 1..Len(answers) : Match(answers[j])}
    IN /\ s.kind = "Answer"
       /\ js /= {}
       /\ LET j == CHOOSE j \in js : \A k \in js : j <= k
              x == answers[j].idx
          IN /\ answers' = SubSeq(answers, 1, j - 1) \o SubSeq(answers, j + 1, Len(answers))
             /\ acked' = IF s.outcome = "written"
                         THEN acked \cup {[idx |-> x, e |-> committed[x], cterm |-> cterm[x], vs |-> VoterSetsBefore(x)]}
                         ELSE acked
       /\ UNCHANGED <<up, log, commit, applied, term, leads, next, proposed, writes, committed, votes, acks, leaders, written, conf, confs, outcomes, cterm>>

(* A reader's step: StateGet(b, k) (a state read) or SubscriberSees(b) (a  *)
(* subscriber read), made in b's current state: served at b's applied      *)
(* index, the scope's retained window within the records b applied (a    *)
(* state read that found nothing reports no value), a subscriber's read    *)
(* starting in it.  It changes nothing but seen; what it saw is judged by  *)
(* the read rules below, as invariants.                                    *)
Read(s) ==
    LET b == s.b IN
    /\ s.kind \in ReadKinds
    /\ s.applied = applied[b]
    /\ s.first <= next[b][s.tenant]
    /\ s.kind = "SubscriberRead" => Len(s.recs) > 0 /\ s.off >= s.first
    /\ (s.kind = "StateRead" /\ ~s.found) => s.data = 0 /\ s.off = 0
    /\ UNCHANGED <<up, log, commit, applied, term, leads, next, proposed, writes, committed, votes, acks, leaders, written, answers, conf, confs, outcomes, cterm, acked>>

(* A broker takes no step before its first Restart.                        *)
Started(s) == s.kind \in {"Answer", "Restart"} \/ up[s.b]

TraceStep ==
    /\ i <= Len(Trace)
    /\ LET s == Trace[i] IN
        /\ s.b \in Brokers
        /\ Started(s)
        /\ \/ Restart(s)
           \/ Timeout(s)
           \/ Vote(s)
           \/ Promote(s)
           \/ Request(s)
           \/ Propose(s)
           \/ Replicate(s)
           \/ AdvanceCommit(s)
           \/ LearnCommit(s)
           \/ Apply(s)
           \/ Answer(s)
           \/ Snapshot(s)
           \/ RestartEmpty(s)
           \/ ProposeConf(s)
           \/ ApplyConf(s)
           \/ Read(s)
        /\ seen' = IF s.kind \in ReadKinds THEN i ELSE 0
    /\ Taken

(* The whole trace was followed: stutter.                                  *)
Done == i > Len(Trace) /\ UNCHANGED vars

Next == TraceStep \/ Done

Spec == Init /\ [][Next]_vars

(* TLC's deadlock check is the refusal; this invariant states the same     *)
(* for a reader: every state is one the trace reached in order.            *)
TypeOK == i \in 1..(Len(Trace) + 1)

-----------------------------------------------------------------------------
(* The model's invariants on the trace state (FelixAtomicCommit's names),  *)
(* checked by TLC on every state: a violation is reported with the state   *)
(* after the step that broke it (i = that step + 1).                       *)

(* The record at offset o of scope t (project numbering, from 0): the      *)
(* commit-table write of the entry written there.                          *)
WriteAt(t, o) == writes[committed[written[t][o + 1]].data].w
(* The index in ops of the last operation on key k (0: none).              *)
LastOpOn(ops, k) == LET js == {j \in 1..Len(ops) : ops[j].key = k} IN IF js = {} THEN 0 ELSE MaxOf(js)
(* The last offset below n whose record touches key k (-1: none).          *)
LastTouch(t, k, n) == LET os == {o \in 0..(n - 1) : LastOpOn(WriteAt(t, o).sops, k) /= 0} IN IF os = {} THEN -1 ELSE MaxOf(os)
(* What StateGet(b, k) must show for read step r: the fold of the records  *)
(* b applied in the scope, retained from r.first (a key whose last write   *)
(* retention dropped is absent).                                           *)
ReadView(r) ==
    LET o == LastTouch(r.tenant, r.key, next[r.b][r.tenant])
        ops == IF o < 0 THEN << >> ELSE WriteAt(r.tenant, o).sops
        op == IF o < 0 THEN [key |-> r.key, del |-> TRUE, val |-> 0] ELSE ops[LastOpOn(ops, r.key)]
    IN IF o < 0 \/ op.del \/ o < r.first THEN [found |-> FALSE, val |-> 0, ver |-> 0]
       ELSE [found |-> TRUE, val |-> op.val, ver |-> o]

(* No reader sees a commit's event without its state or its state without  *)
(* its event: a state read shows the value b's applied records leave; a    *)
(* subscriber gets the whole record (event and state operations) written  *)
(* at each offset, and only at offsets b applied.                          *)
NoPartialCommit ==
    seen /= 0 =>
        LET r == Trace[seen] IN
        IF r.kind = "StateRead"
        THEN LET w == ReadView(r) IN r.found = w.found /\ (r.found => r.data = w.val)
        ELSE \A j \in 1..Len(r.recs) :
                /\ r.off + j - 1 < next[r.b][r.tenant]
                /\ r.recs[j] = WriteAt(r.tenant, r.off + j - 1).dig

(* A state read's version is the offset of a retained record b applied     *)
(* that put the value read on the key.                                     *)
VersionIsOffset ==
    (seen /= 0 /\ Trace[seen].kind = "StateRead" /\ Trace[seen].found) =>
        LET r == Trace[seen] IN
        /\ r.off < next[r.b][r.tenant] /\ r.off >= r.first
        /\ LET ops == WriteAt(r.tenant, r.off).sops
               j == LastOpOn(ops, r.key)
           IN j /= 0 /\ ~ops[j].del /\ ops[j].val = r.data

(* b's state view is the fold of its applied log: the version read is the  *)
(* last record that touched the key.                                       *)
StateMatchesLog ==
    (seen /= 0 /\ Trace[seen].kind = "StateRead" /\ Trace[seen].found) =>
        Trace[seen].off = ReadView(Trace[seen]).ver

(* An acknowledged write survives: a quorum of a configuration it may have *)
(* been committed in holds its entry in their stored logs, and every       *)
(* leader of the term that committed it or a later one holds it.  (Every   *)
(* replica that applied that far has it at its offset by construction:     *)
(* written keeps one entry per offset, which every Apply must match.)      *)
Holds(q, a) == Len(log[q]) >= a.idx /\ log[q][a.idx] = a.e
CommittedNeverLost ==
    \A a \in acked :
        LET H == {q \in Brokers : Holds(q, a)} IN
        /\ \E V \in a.vs : 2 * Cardinality(H \cap V) > Cardinality(V)
        /\ \A l \in Brokers : (leads[l] /= 0 /\ leads[l] >= a.cterm) => Holds(l, a)
=============================================================================
