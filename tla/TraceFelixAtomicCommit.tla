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
NoWrite == [tenant |-> "", kind |-> "none", cond |-> FALSE, exp |-> 0, ops |-> 0, dig |-> 0, sops |-> << >>,
            retain |-> 0, feature |-> "", gen |-> 0, del |-> FALSE]
ReadKinds == {"StateRead", "SubscriberRead"}
WriteKinds == {"publish", "publish_if", "enqueue", "commit", "commit_if"}
CommandKinds == {"fetch", "ack", "outbox_trim"}
MarkerKinds == {"feature", "incarnation"}
QuorumOf(S, m) == 2 * Cardinality(S \cap m.voters) > Cardinality(m.voters)
Min(a, b) == IF a < b THEN a ELSE b
Max(a, b) == IF a > b THEN a ELSE b
(* The most scopes a stream shard's raft group holds (the broker's         *)
(* node.ScopesPerRaftGroupMax, tla.ScopesPerGroupMax).                     *)
ScopesPerGroupMax == 64
(* A stream's incarnation at boot: generation 1, live (generation * 2 +    *)
(* deleted).                                                               *)
BootIncarnation == 2
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
    seen,       \* the step number of the read just taken (0: the last step read nothing)
    first,      \* first[b][t]: the first retained offset of scope t on b
    fin,        \* fin[b]: atomic_commit is finalized at b's applied index
    inc,        \* inc[b]: b's stream incarnation (generation * 2 + deleted)
    drops,      \* drops[t]: <<[idx, first]>>: where the first apply of an index set t's first retained offset
    featAt,     \* the index of the first atomic_commit marker applied (0: none)
    incs,       \* <<[idx, order]>>: the incarnation markers that changed one, first applied at idx
    rmax,       \* the group's constants, set by its first Restart (cset): the most records
    bootFin,    \*   a scope retains (0: no cap), and whether it booted with atomic_commit finalized
    cset,
    amark,      \* the highest index whose write a broker answered (written or refused)
    reads       \* <<[b, client, req, tenant, key, mark]>>: the state reads begun, mark = amark then

\* Retention and markers; the group's constants; the reads begun.
retv == <<first, fin, inc, drops, featAt, incs>>
gconst == <<rmax, bootFin, cset>>
readv == <<amark, reads>>

vars == <<i, up, log, commit, applied, term, leads, next, proposed, writes, committed, votes, acks, leaders, written, answers, conf, confs, outcomes, cterm, acked, seen, retv, gconst, readv>>

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
    /\ first = [b \in Brokers |-> [t \in Tenants |-> 0]]
    /\ fin = [b \in Brokers |-> FALSE]
    /\ inc = [b \in Brokers |-> BootIncarnation]
    /\ drops = [t \in Tenants |-> << >>]
    /\ featAt = 0
    /\ incs = << >>
    /\ rmax = 0
    /\ bootFin = FALSE
    /\ cset = FALSE
    /\ amark = 0
    /\ reads = << >>

(* Every action takes step s = Trace[i] and moves on to the next.          *)
Taken == i' = i + 1

Sent(k) == k \in DOMAIN proposed
LeaderOf(t) == IF t \in DOMAIN leaders THEN leaders[t] ELSE 0

(* The next offsets re-applying the log up to index a gives each scope.    *)
Rebuilt(a) == [t \in Tenants |-> Cardinality({o \in 1..Len(written[t]) : written[t][o] <= a})]

(* The first retained offset of scope t at applied index a, where its next *)
(* offset is n: the last drop point's at or below a, or n less the group's *)
(* cap r when that is past it.                                             *)
DropAt(t, a) ==
    LET js == {j \in 1..Len(drops[t]) : drops[t][j].idx <= a}
    IN IF js = {} THEN 0 ELSE drops[t][MaxOf(js)].first
FirstAt(t, a, n, r) == IF r > 0 /\ n > r THEN Max(DropAt(t, a), n - r) ELSE DropAt(t, a)
RebuiltFirst(a, nx, r) == [t \in Tenants |-> FirstAt(t, a, nx[t], r)]
(* Whether atomic_commit is finalized, and the incarnation, at index a.    *)
FinAt(a, bf) == bf \/ (featAt /= 0 /\ featAt <= a)
IncAt(a) == LET os == {incs[j].order : j \in {j \in 1..Len(incs) : incs[j].idx <= a}}
            IN IF os = {} THEN BootIncarnation ELSE Max(BootIncarnation, MaxOf(os))
Deleted(b) == inc[b] % 2 = 1

(* The group's constants a Restart reports: the first Restart sets them;   *)
(* every later one reports the same cap.                                   *)
Constants(s) ==
    /\ cset => s.retained_max = rmax
    /\ rmax' = IF cset THEN rmax ELSE s.retained_max
    /\ bootFin' = IF cset THEN bootFin ELSE s.finalized
    /\ cset' = TRUE

(* The reads b began are over: it restarted or stopped leading.            *)
ReadsWithout(b) == LET Others(r) == r.b /= b IN SelectSeq(reads, Others)

(* The scopes a step reports match the next and first retained offsets nx *)
(* and fx re-applying the log gives, and name every scope with records.    *)
ScopesMatch(sc, nx, fx) ==
    /\ \A j \in 1..Len(sc) : sc[j].next = nx[sc[j].tenant] /\ sc[j].first = fx[sc[j].tenant]
    /\ Cardinality({j \in 1..Len(sc) : sc[j].next > 0}) = Cardinality({t \in Tenants : nx[t] > 0})

(* Crash(b), then the hidden steps that rebuild b from its store: the      *)
(* stored log starts at a snapshot (the bootstrap one at index 1, or a     *)
(* compaction point b had applied) of an entry b held, and keeps every     *)
(* persisted entry after it (extra ones only entries a leader sent, or     *)
(* b's own of a term it led); the compacted prefix stays the model's log;  *)
(* the stored commit mark was committed; re-applying the log up to the     *)
(* stored applied index gives each scope's rebuilt next and first retained *)
(* offsets, whether atomic_commit is finalized, and the incarnation.       *)
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
        r == IF cset THEN rmax ELSE s.retained_max
        fx == RebuiltFirst(a, nx, r)
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
       /\ ScopesMatch(s.scopes, nx, fx)
       /\ Constants(s)
       /\ s.finalized = FinAt(a, IF cset THEN bootFin ELSE s.finalized)
       /\ first' = [first EXCEPT ![b] = fx]
       /\ fin' = [fin EXCEPT ![b] = s.finalized]
       /\ inc' = [inc EXCEPT ![b] = IncAt(a)]
       /\ reads' = ReadsWithout(b)
       /\ proposed' = proposed @@ [k \in {<<st[x].term, x>> : x \in fresh} |-> [data |-> st[k[2]].data, prev |-> st[k[2] - 1].term]]
       /\ acks' = acks \cup {<<st[x].term, x, b>> : x \in (Len(old) + 1)..Len(st)}
       /\ up' = [up EXCEPT ![b] = TRUE]
       /\ leads' = [leads EXCEPT ![b] = 0]
       /\ log' = [log EXCEPT ![b] = st]
       /\ commit' = [commit EXCEPT ![b] = c]
       /\ applied' = [applied EXCEPT ![b] = a]
       /\ next' = [next EXCEPT ![b] = nx]
       /\ conf' = [conf EXCEPT ![b] = ConfAt(st, a)]
       /\ LET Others(q) == q.b /= b IN answers' = SelectSeq(answers, Others)
       /\ UNCHANGED <<term, writes, committed, votes, leaders, written, confs, outcomes, cterm, acked, drops, featAt, incs, amark>>

(* The Restart of an identity that joined with an empty log and holds none *)
(* yet: nothing stored, committed or applied.                              *)
RestartEmpty(s) ==
    LET b == s.b IN
    /\ s.kind = "Restart"
    /\ log[b] = << >> /\ s.idx = 0
    /\ s.entries = << Entry(0, 0) >> /\ s.commit = 0 /\ s.applied = 0 /\ s.scopes = << >> /\ ~s.finalized
    /\ Constants(s)
    /\ up' = [up EXCEPT ![b] = TRUE]
    /\ leads' = [leads EXCEPT ![b] = 0]
    /\ fin' = [fin EXCEPT ![b] = FALSE]
    /\ inc' = [inc EXCEPT ![b] = BootIncarnation]
    /\ reads' = ReadsWithout(b)
    /\ LET Others(r) == r.b /= b IN answers' = SelectSeq(answers, Others)
    /\ UNCHANGED <<log, commit, applied, term, next, proposed, writes, committed, votes, acks, leaders, written, conf, confs, outcomes, cterm, acked, first, drops, featAt, incs, amark>>

(* A leader's snapshot installed on b: Replicate of the committed prefix   *)
(* up to the snapshot's entry, then the hidden applies.  The entry is      *)
(* committed and past b's commit mark; b's log becomes that prefix,        *)
(* applied there, its scopes, feature and incarnation what re-applying it  *)
(* gives.                                                                  *)
Snapshot(s) ==
    LET b == s.b
        x == s.idx
        nx == Rebuilt(x)
        fx == RebuiltFirst(x, nx, rmax)
    IN /\ s.kind = "Snapshot"
       /\ x >= 1 /\ x <= Len(committed) /\ committed[x].term = s.term
       /\ x > commit[b]
       /\ ScopesMatch(s.scopes, nx, fx)
       /\ first' = [first EXCEPT ![b] = fx]
       /\ fin' = [fin EXCEPT ![b] = FinAt(x, bootFin)]
       /\ inc' = [inc EXCEPT ![b] = IncAt(x)]
       /\ log' = [log EXCEPT ![b] = SubSeq(committed, 1, x)]
       /\ commit' = [commit EXCEPT ![b] = x]
       /\ applied' = [applied EXCEPT ![b] = x]
       /\ next' = [next EXCEPT ![b] = nx]
       /\ conf' = [conf EXCEPT ![b] = ConfAt(committed, x)]
       /\ UNCHANGED <<up, term, leads, proposed, writes, committed, votes, acks, leaders, written, answers, confs, outcomes, cterm, acked, drops, featAt, incs, gconst, readv>>

(* b persists its vote: for itself, Timeout(b) (b starts an election in    *)
(* that term as a candidate); for another, Vote(b, cand) (b grants the     *)
(* candidate's request).  One vote per broker and term, never in a term    *)
(* older than one b voted in; a leader of an older term steps down, and    *)
(* the reads it began end (answered NotLeader).                            *)
VoteOK(s) ==
    LET b == s.b
        k == <<s.term, b>>
    IN /\ s.kind = "Vote"
       /\ k \in DOMAIN votes => votes[k].cand = s.cand
       /\ s.term >= term[b]
       /\ votes' = (k :> [cand |-> s.cand, lastTerm |-> LastTerm(log[b]), len |-> Len(log[b])]) @@ votes
       /\ term' = [term EXCEPT ![b] = s.term]
       /\ leads' = [leads EXCEPT ![b] = IF @ /= 0 /\ @ < s.term THEN 0 ELSE @]
       /\ reads' = IF leads[b] /= 0 /\ leads[b] < s.term THEN ReadsWithout(b) ELSE reads
       /\ UNCHANGED <<up, log, commit, applied, next, proposed, writes, committed, acks, leaders, written, answers, conf, confs, outcomes, cterm, acked, retv, gconst, amark>>

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
       /\ reads' = ReadsWithout(b)
       /\ UNCHANGED <<up, log, commit, applied, next, proposed, writes, committed, votes, acks, written, answers, conf, confs, outcomes, cterm, acked, retv, gconst, amark>>

(* Propose, its client half: the proposal is the client's write unchanged  *)
(* (its state operations listed, as many as it counts), proposed in a term *)
(* no older than one the broker voted or led in; a broker's own command    *)
(* names its kind (a marker names no scope).                               *)
Request(s) ==
    /\ s.kind = "Request"
    /\ s.asked /= NoWrite /\ s.asked = s.proposed
    /\ Len(s.proposed.sops) = s.proposed.ops
    /\ s.proposed.kind /= "operator"
    /\ s.proposed.kind \in MarkerKinds => s.proposed.tenant = "" /\ s.proposed.ops = 0 /\ s.proposed.dig = 0
    /\ s.term >= term[s.b]
    /\ s.data /= 0
    /\ s.data \notin DOMAIN writes
    /\ writes' = (s.data :> [b |-> s.b, client |-> s.client, req |-> s.req, w |-> s.proposed]) @@ writes
    /\ UNCHANGED <<up, log, commit, applied, term, leads, next, proposed, committed, votes, acks, leaders, written, answers, conf, confs, outcomes, cterm, acked, retv, gconst, readv>>

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
    /\ UNCHANGED <<up, log, commit, applied, term, leads, next, proposed, writes, committed, votes, acks, leaders, written, answers, conf, outcomes, cterm, acked, retv, gconst, readv>>

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
       /\ UNCHANGED <<up, log, commit, term, leads, next, proposed, writes, committed, votes, acks, leaders, written, answers, confs, outcomes, cterm, acked, retv, gconst, readv>>

(* A Persist of entries es from index s.idx on, taken in term s.term: that *)
(* term is no older than b's own (a follower refuses an append of an older *)
(* term, as a deposed leader sends after b voted in a newer one), nor than *)
(* any entry's, and some broker leads it (b's term moves up to it; a       *)
(* deposed leader is not stepped down: its round's Commit step, which may  *)
(* be its own as that leader, follows); each entry either is one a         *)
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
       /\ s.term >= term[b]
       /\ \A j \in 1..Len(es) : es[j].term <= s.term
       /\ s.term \in DOMAIN leaders
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
       /\ term' = [term EXCEPT ![b] = Max(@, s.term)]
       /\ UNCHANGED <<up, applied, leads, next, writes, committed, votes, leaders, written, answers, conf, confs, outcomes, cterm, acked, retv, gconst, readv>>

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
    /\ UNCHANGED <<up, log, applied, term, leads, next, proposed, writes, committed, votes, acks, leaders, written, answers, conf, confs, outcomes, cterm, acked, retv, gconst, readv>>

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
       /\ UNCHANGED <<up, log, applied, term, leads, next, proposed, writes, votes, acks, leaders, written, answers, conf, confs, outcomes, acked, retv, gconst, readv>>

(* Apply(b): b applies its next committed entry, which gives what the     *)
(* model recomputes from the entry's command and b's state (traceapply.go  *)
(* states each rule), the same as every other Apply of that index          *)
(* (outcomes: outcome, offset, error and first retained offset).           *)
Outcome(s) == [outcome |-> s.outcome, off |-> s.off, err |-> s.error, first |-> s.first]

(* The scopes the group's commands name (a marker names none).             *)
NScopes == Cardinality({writes[d].w.tenant : d \in {d \in DOMAIN writes : writes[d].w.kind \notin MarkerKinds}})

(* What applying client write w gives on b: an outcome, its offset or     *)
(* error, and an error the model allows instead ("": none), decided by    *)
(* state it does not hold (a full retained log's consumer groups, the     *)
(* group's scope cap).                                                     *)
WriteWant(b, w) ==
    LET nx == next[b][w.tenant]
        fx == first[b][w.tenant]
        cap == IF nx = 0 /\ NScopes > ScopesPerGroupMax THEN "InvalidRequest" ELSE ""
    IN CASE Deleted(b) -> [outcome |-> "error", off |-> 0, err |-> "UnknownStream", may |-> ""]
         [] w.ops > 0 /\ ~fin[b] -> [outcome |-> "error", off |-> 0, err |-> "FeatureNotFinalized", may |-> cap]
         [] w.cond /\ w.exp /= nx -> [outcome |-> "refused", off |-> nx, err |-> "", may |-> cap]
         [] OTHER -> [outcome |-> "written", off |-> nx, err |-> "",
                      may |-> IF rmax > 0 /\ nx - fx >= rmax THEN "Unavailable" ELSE cap]
Allows(s, w) ==
    \/ w.may /= "" /\ s.outcome = "error" /\ s.error = w.may /\ s.off = 0
    \/ /\ s.outcome = w.outcome /\ s.error = w.err
       /\ IF s.outcome = "error" THEN s.off = 0 ELSE s.off = w.off

(* A client write: one record at the scope's next offset, or none; every   *)
(* replica writes the same entry at the same offset; a write at a full     *)
(* retained log drops its oldest record.  The proposer answers what it     *)
(* gave.                                                                   *)
ApplyWrite(s, b, x, wr) ==
    LET w == wr.w
        t == w.tenant
        nx == next[b][t]
        fx == first[b][t]
        after == IF s.outcome = "written" /\ rmax > 0 /\ nx + 1 - fx > rmax THEN nx + 1 - rmax ELSE fx
        ws == written[t]
    IN /\ Allows(s, WriteWant(b, w))
       /\ s.first = after
       /\ IF s.outcome = "written"
          THEN /\ Len(ws) = nx \/ (Len(ws) > nx /\ ws[nx + 1] = x)
               /\ written' = [written EXCEPT ![t] = IF Len(ws) = nx THEN Append(ws, x) ELSE ws]
               /\ next' = [next EXCEPT ![b][t] = nx + 1]
               /\ first' = [first EXCEPT ![b][t] = after]
          ELSE UNCHANGED <<next, written, first>>
       /\ answers' = IF wr.b = b /\ s.outcome \in {"written", "refused"}
                     THEN Append(answers, [b |-> b, client |-> wr.client, req |-> wr.req, outcome |-> s.outcome, off |-> s.off, idx |-> x])
                     ELSE answers
       /\ UNCHANGED <<fin, inc, drops, featAt, incs>>

(* The first apply of index x sets scope t's first retained offset to f.   *)
NoteDrop(t, x, f) ==
    IF Len(drops[t]) > 0 /\ drops[t][Len(drops[t])].idx >= x THEN drops[t] ELSE Append(drops[t], [idx |-> x, first |-> f])

(* A retention step: refused when the scope holds nothing on b or its      *)
(* offset is past the tail; else the first retained offset moves up, to at *)
(* most the step's offset (consumer groups may hold it back).              *)
ApplyRetain(s, b, x, w) ==
    LET t == w.tenant
        nx == next[b][t]
        fx == first[b][t]
    IN IF nx = 0 \/ w.retain > nx
       THEN /\ s.outcome = "error" /\ s.error = "InvalidRequest" /\ s.first = fx
            /\ UNCHANGED <<first, drops>>
       ELSE /\ s.outcome = "none" /\ s.first >= fx /\ s.first <= Max(fx, w.retain)
            /\ first' = [first EXCEPT ![b][t] = s.first]
            /\ drops' = [drops EXCEPT ![t] = NoteDrop(t, x, s.first)]

(* A feature's marker finalizes it; an incarnation's marker newer than b's *)
(* moves b there and empties every scope.                                  *)
ApplyMarker(s, b, x, w) ==
    /\ s.outcome = "none" /\ s.first = 0
    /\ IF w.kind = "feature"
       THEN /\ fin' = [fin EXCEPT ![b] = IF w.feature = "atomic_commit" THEN TRUE ELSE @]
            /\ featAt' = IF w.feature = "atomic_commit" /\ (featAt = 0 \/ x < featAt) THEN x ELSE featAt
            /\ UNCHANGED <<inc, incs, first, drops>>
       ELSE LET o == w.gen * 2 + (IF w.del THEN 1 ELSE 0) IN
            IF o <= inc[b]
            THEN UNCHANGED <<fin, featAt, inc, incs, first, drops>>
            ELSE /\ inc' = [inc EXCEPT ![b] = o]
                 /\ incs' = IF Len(incs) = 0 \/ incs[Len(incs)].idx < x THEN Append(incs, [idx |-> x, order |-> o]) ELSE incs
                 /\ first' = [first EXCEPT ![b] = [t \in Tenants |-> next[b][t]]]
                 /\ drops' = [t \in Tenants |-> NoteDrop(t, x, next[b][t])]
                 /\ UNCHANGED <<fin, featAt>>

Apply(s) ==
    LET b == s.b
        x == s.idx
    IN /\ s.kind = "Apply"
       /\ x = applied[b] + 1
       /\ x <= commit[b]
       /\ log[b][x] = Entry(s.term, s.data)
       /\ s.data /= 0 => s.data \in DOMAIN writes
       /\ x \in DOMAIN outcomes => outcomes[x] = Outcome(s)
       /\ outcomes' = IF x \in DOMAIN outcomes THEN outcomes ELSE (x :> Outcome(s)) @@ outcomes
       /\ applied' = [applied EXCEPT ![b] = x]
       /\ IF s.data = 0
          THEN /\ s.outcome = "none" /\ s.error = "" /\ s.first = 0
               /\ UNCHANGED <<next, written, answers, retv>>
          ELSE LET wr == writes[s.data] IN
               IF wr.w.kind \in WriteKinds
               THEN ApplyWrite(s, b, x, wr)
               ELSE /\ s.off = 0 /\ s.outcome \in {"none", "error"} /\ (s.outcome = "error") = (s.error /= "")
                    /\ UNCHANGED <<next, written, answers>>
                    /\ CASE wr.w.kind = "retain" -> ApplyRetain(s, b, x, wr.w) /\ UNCHANGED <<fin, inc, featAt, incs>>
                         [] wr.w.kind \in MarkerKinds -> ApplyMarker(s, b, x, wr.w)
                         [] OTHER -> /\ Deleted(b) = (s.error = "UnknownStream")
                                     /\ s.first = first[b][wr.w.tenant]
                                     /\ UNCHANGED retv
       /\ UNCHANGED <<up, log, commit, term, leads, proposed, writes, committed, votes, acks, leaders, conf, confs, cterm, acked, gconst, readv>>

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
(* entry, the term that committed it and the voter sets of its quorum; any *)
(* answer raises the highest answered index a later read must cover.       *)
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
             /\ amark' = Max(amark, x)
       /\ UNCHANGED <<up, log, commit, applied, term, leads, next, proposed, writes, committed, votes, acks, leaders, written, conf, confs, outcomes, cterm, retv, gconst, reads>>

(* A reader's step: StateGet(b, k) (a state read) or SubscriberSees(b) (a  *)
(* subscriber read), made in b's current state: served at b's applied      *)
(* index, the scope's retained window b's (a state read that found nothing *)
(* reports no value), a subscriber's read starting in it.  A state read    *)
(* serves the oldest read of its request b began (ReadStart), of the same  *)
(* key, at a read index b applied, committed, and no lower than every     *)
(* write answered before the read began.  It changes nothing but seen and the reads      *)
(* begun; what it saw is judged by the read rules below, as invariants.    *)
Read(s) ==
    LET b == s.b IN
    /\ s.kind \in ReadKinds
    /\ s.applied = applied[b]
    /\ s.first <= next[b][s.tenant]
    /\ s.first = first[b][s.tenant]
    /\ s.kind = "SubscriberRead" => Len(s.recs) > 0 /\ s.off >= s.first
    /\ (s.kind = "StateRead" /\ ~s.found) => s.data = 0 /\ s.off = 0
    /\ IF s.kind = "StateRead"
       THEN LET js == {j \in 1..Len(reads) : reads[j].b = b /\ reads[j].client = s.client /\ reads[j].req = s.req}
            IN /\ js /= {}
               /\ LET j == CHOOSE j \in js : \A k \in js : j <= k
                  IN /\ reads[j].tenant = s.tenant /\ reads[j].key = s.key
                     /\ s.readidx >= 1 /\ s.readidx <= s.applied
                     /\ s.readidx >= reads[j].mark
                     /\ s.readidx <= Len(committed)
                     /\ reads' = SubSeq(reads, 1, j - 1) \o SubSeq(reads, j + 1, Len(reads))
       ELSE UNCHANGED reads
    /\ UNCHANGED <<up, log, commit, applied, term, leads, next, proposed, writes, committed, votes, acks, leaders, written, answers, conf, confs, outcomes, cterm, acked, retv, gconst, amark>>

(* The first half of StateGet: b begins a client's state read, which must  *)
(* be served at a read index covering every write answered so far.         *)
ReadStart(s) ==
    /\ s.kind = "ReadStart"
    /\ s.client /= 0 /\ s.req /= 0
    /\ Cardinality({j \in 1..Len(reads) : reads[j].b = s.b /\ reads[j].client = s.client /\ reads[j].req = s.req}) < 64
    /\ reads' = Append(reads, [b |-> s.b, client |-> s.client, req |-> s.req, tenant |-> s.tenant, key |-> s.key, mark |-> amark])
    /\ UNCHANGED <<up, log, commit, applied, term, leads, next, proposed, writes, committed, votes, acks, leaders, written, answers, conf, confs, outcomes, cterm, acked, retv, gconst, amark>>

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
           \/ ReadStart(s)
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
