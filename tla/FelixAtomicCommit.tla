-------------------------- MODULE FelixAtomicCommit --------------------------
(***************************************************************************)
(* One stream shard replicated on a few brokers.  A Felix commit is one    *)
(* record in the shard's log: exactly one event plus put/delete operations *)
(* on the shard's keyed state.  The model shows that no reader (a          *)
(* subscriber, a consumer group or state_get), on any broker, at any time, *)
(* before or after a failover and a second promotion, sees the event       *)
(* without the state or the state without the event.                       *)
(*                                                                         *)
(* Two levels of log, as in the broker:                                    *)
(*   log[b]   the raft log of proposals (index 1, 2, ...); its first       *)
(*            durable[b] entries are on disk.  A follower persists what it *)
(*            receives before acknowledging it; the leader persists its   *)
(*            own appends later (Persist) and counts itself toward the     *)
(*            quorum only for what is on its disk.  A crash keeps only the *)
(*            persisted prefix;                                            *)
(*   shard[b] the applied shard log: the records written by applying the   *)
(*            committed proposals in order.  A refused commit_if writes    *)
(*            nothing, so shard offsets and raft indexes differ.           *)
(* Offsets are sequence indexes: model offset o is project offset o - 1.   *)
(* A state version is the offset of the record that last wrote the key.    *)
(* The value a commit puts is its commit id, so a reader can tell which    *)
(* commit a value belongs to.                                              *)
(*                                                                         *)
(* Variant selects the model:                                              *)
(*   "Atomic"        a commit is one record, applied in one step;          *)
(*   "SplitRecords"  a commit is written as two records, event then state; *)
(*   "PartialApply"  a record's event is applied, then its state, with a   *)
(*                   visible step in between.                              *)
(* Both broken variants let a reader see half a commit (NoPartialCommit).  *)
(*                                                                         *)
(* Raft is modelled with per-broker terms and explicit messages: each      *)
(* broker has its own term and vote (persisted) and role (volatile); a     *)
(* candidate collects votes, each granted by a voter that finds its log up *)
(* to date (Vote); a leader learns what its followers hold only from their *)
(* acknowledgements (acked), sent after they persisted what it sent        *)
(* (Replicate).  A deposed leader keeps acting in its old term until a     *)
(* message of a newer term reaches it, as in the broker.                   *)
(*                                                                         *)
(* Membership, as etcd raft has it: a leader appends a simple change (one  *)
(* identity: remove a voter, add a spare as a learner, promote a learner)  *)
(* as a log entry carrying the configuration it gives (Reconfigure); a     *)
(* broker's configuration (conf) is the one of the last change it applied *)
(* (a change takes effect when applied, and survives a crash, as the      *)
(* broker stores it with its applied index).  A candidate asks, and counts,*)
(* only its voters; a leader replicates to its voters and learners and     *)
(* counts only its voters.  Spares start outside every configuration with *)
(* an empty log.  MaxReconfigs bounds the changes; at 0 (and no spares)    *)
(* the model is the one without membership, state for state.               *)
(*                                                                         *)
(* The broker's shape, each behind a constant (the configs that set none   *)
(* of them are the model before them, state for state): CrashKinds says    *)
(* how a broker restarts: "forget" (Crash: the commit mark and the applied *)
(* state are volatile) or "keep" (CrashKeep: kept, as the broker keeps     *)
(* them in its store) or both; EmptyEntries has a new leader append an     *)
(* empty entry of its term, as raft does; ExpChoice lets a commit_if's     *)
(* client pick its expected offset (any of 1..MaxCommits: it may read a   *)
(* tail that writes pipelined before it move), so that writes pipelined    *)
(* before either is applied may both be written.                           *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets

CONSTANTS
    Brokers,     \* the brokers holding a replica of the shard
    Keys,        \* the state keys
    MaxTerm,     \* the highest term a broker may start an election for
    MaxCommits,  \* how many commits clients may propose in all
    Ops,         \* Ops[c]: the sequence of [op |-> "put"|"del", key |-> k] of commit c
    Kind,        \* Kind[c]: "commit", or "commit_if" at the next offset the client read
    Variant,     \* "Atomic", "SplitRecords" or "PartialApply"
    Defect,      \* "none", or a planted broker bug the invariants must catch
    None,        \* a model value: no vote
    Spares,      \* the brokers outside the initial configuration, free to be added
    MaxReconfigs,\* how many membership changes leaders may propose in all
    CrashKinds,  \* how a broker restarts: a subset of {"forget", "keep"}
    EmptyEntries,\* TRUE: a new leader appends an empty entry of its term
    ExpChoice    \* TRUE: a commit_if's client picks its expected offset

ASSUME Variant \in {"Atomic", "SplitRecords", "PartialApply"}
(* Planted defects: "CommitWithoutQuorum" marks an entry committed (so it *)
(* can be acknowledged) once any broker holds it on disk; "ElectStale"    *)
(* elects a broker whose log is not up to date; "ConditionAtProposal"     *)
(* writes a commit_if whatever the tail is at apply time (as if judged    *)
(* when proposed).                                                        *)
ASSUME Defect \in {"none", "CommitWithoutQuorum", "ElectStale", "ConditionAtProposal"}
ASSUME MaxTerm \in Nat /\ MaxCommits \in Nat /\ MaxReconfigs \in Nat
ASSUME CrashKinds \subseteq {"forget", "keep"} /\ EmptyEntries \in BOOLEAN /\ ExpChoice \in BOOLEAN
ASSUME Spares \subseteq Brokers /\ Brokers \ Spares /= {}
ASSUME DOMAIN Ops = 1..MaxCommits
ASSUME DOMAIN Kind = 1..MaxCommits /\ \A c \in 1..MaxCommits : Kind[c] \in {"commit", "commit_if"}
ASSUME \A c \in 1..MaxCommits : \A i \in DOMAIN Ops[c] :
          Ops[c][i].op \in {"put", "del"} /\ Ops[c][i].key \in Keys

VARIABLES
    term,         \* term[b]: b's current term (0 before its first election; persisted)
    votedFor,     \* votedFor[b]: the broker b voted for in term[b], or None (persisted)
    role,         \* role[b]: "follower", "candidate" or "leader" of term[b] (volatile)
    votes,        \* votes[b]: the brokers whose vote for b in term[b] reached b (volatile: the vote messages)
    acked,        \* acked[b][q]: the highest index q acknowledged holding to leader b in term[b] (volatile: the ack messages)
    log,          \* log[b]: raft log of proposals [term, cid, kind, exp, part]
    durable,      \* durable[b]: how many entries of log[b] are persisted
    commitIndex,  \* commitIndex[b]: the quorum committed mark b knows (volatile)
    applied,      \* applied[b]: how many proposals b has applied (volatile)
    shard,        \* shard[b]: the applied shard log, records [cid, kind, exp, part]
    kv,           \* kv[b][k]: the state view, [val, ver]; val 0 means absent
    mid,          \* mid[b]: b is between the two steps of a PartialApply
    nextCid,      \* the id of the next commit a client proposes
    reply,        \* reply[c]: a leader's answer to commit c's client
    conf,         \* conf[b]: [at, voters, learners], the configuration of the last change b applied (at: its index; persisted)
    nconf         \* how many membership changes leaders have proposed

vars == <<term, votedFor, role, votes, acked, log, durable, commitIndex, applied, shard, kv, mid, nextCid, reply, conf, nconf>>

Absent == [val |-> 0, ver |-> 0]
EmptyView == [k \in Keys |-> Absent]
NoReply == [st |-> "none", at |-> 0, idx |-> 0, exp |-> 0, term |-> 0]
NoAcks == [q \in Brokers |-> 0]
InitVoters == Brokers \ Spares
(* S holds a majority of the voters V.                                     *)
QuorumIn(S, V) == 2 * Cardinality(S \cap V) > Cardinality(V)
Voters(b) == conf[b].voters
Members(b) == conf[b].voters \cup conf[b].learners
Min(a, b) == IF a < b THEN a ELSE b
Max(S) == CHOOSE x \in S : \A y \in S : y <= x

HasEvent(r) == r.part \in {"whole", "event"}
HasState(r) == r.part \in {"whole", "state"}

(* Applies commit c's operations to view s; puts write value c at offset o. *)
RECURSIVE ApplyOpsFrom(_, _, _, _)
ApplyOpsFrom(s, c, o, i) ==
    IF i > Len(Ops[c]) THEN s
    ELSE LET op == Ops[c][i]
             v == IF op.op = "put" THEN [val |-> c, ver |-> o] ELSE Absent
         IN ApplyOpsFrom([s EXCEPT ![op.key] = v], c, o, i + 1)

ApplyRecord(s, r, o) == IF HasState(r) THEN ApplyOpsFrom(s, r.cid, o, 1) ELSE s

(* The state view a shard log implies: the fold of its records in order.   *)
RECURSIVE FoldFrom(_, _, _)
FoldFrom(s, sh, o) == IF o > Len(sh) THEN s ELSE FoldFrom(ApplyRecord(s, sh[o], o), sh, o + 1)
Fold(sh) == FoldFrom(EmptyView, sh, 1)

(***************************************************************************)
(* Readers.  A subscriber sees the events of the applied shard log; a      *)
(* consumer group is handed the same events, at the same offsets, as work; *)
(* state_get reads the state view.  All three read whatever broker they    *)
(* are connected to, at any time, so every reachable state is a possible   *)
(* observation.                                                            *)
(***************************************************************************)
SubscriberSees(b) == SelectSeq(shard[b], HasEvent)
GroupGets(b) == SelectSeq(shard[b], HasEvent)
StateGet(b, k) == kv[b][k]

(* The values a reader must see if it sees exactly the events in seq es.   *)
RECURSIVE ValuesFrom(_, _, _)
ValuesFrom(s, es, i) == IF i > Len(es) THEN s ELSE ValuesFrom(ApplyOpsFrom(s, es[i].cid, 0, 1), es, i + 1)
ImpliedValues(es) == LET s == ValuesFrom(EmptyView, es, 1) IN [k \in Keys |-> s[k].val]

-----------------------------------------------------------------------------
Init ==
    /\ term = [b \in Brokers |-> 0]
    /\ votedFor = [b \in Brokers |-> None]
    /\ role = [b \in Brokers |-> "follower"]
    /\ votes = [b \in Brokers |-> {}]
    /\ acked = [b \in Brokers |-> NoAcks]
    /\ log = [b \in Brokers |-> << >>]
    /\ durable = [b \in Brokers |-> 0]
    /\ commitIndex = [b \in Brokers |-> 0]
    /\ applied = [b \in Brokers |-> 0]
    /\ shard = [b \in Brokers |-> << >>]
    /\ kv = [b \in Brokers |-> EmptyView]
    /\ mid = [b \in Brokers |-> FALSE]
    /\ nextCid = 1
    /\ reply = [c \in 1..MaxCommits |-> NoReply]
    /\ conf = [b \in Brokers |-> [at |-> 0, voters |-> IF b \in Spares THEN {} ELSE InitVoters, learners |-> {}]]
    /\ nconf = 0

LastTerm(l) == IF l = << >> THEN 0 ELSE l[Len(l)].term
UpToDate(l, m) == LastTerm(l) > LastTerm(m) \/ (LastTerm(l) = LastTerm(m) /\ Len(l) >= Len(m))

(* b's election timer fires: it starts the next term as a candidate and    *)
(* votes for itself (persisted before it asks for votes).                  *)
Timeout(b) ==
    /\ role[b] /= "leader"
    /\ b \in Voters(b)
    /\ term[b] < MaxTerm
    /\ term' = [term EXCEPT ![b] = term[b] + 1]
    /\ votedFor' = [votedFor EXCEPT ![b] = b]
    /\ role' = [role EXCEPT ![b] = "candidate"]
    /\ votes' = [votes EXCEPT ![b] = {b}]
    /\ UNCHANGED <<acked, log, durable, commitIndex, applied, shard, kv, mid, nextCid, reply, conf, nconf>>

(* q grants candidate b's vote request (the request carries b's term and   *)
(* its log's last term and length) and its grant reaches b: q has not      *)
(* voted for another in that term and finds b's log up to date.  A request *)
(* of a newer term moves q to it first (a deposed leader steps down).      *)
(* A candidate asks only the voters of its configuration.                  *)
Vote(q, b) ==
    /\ q /= b
    /\ q \in Voters(b)
    /\ role[b] = "candidate"
    /\ q \notin votes[b]
    /\ term[q] <= term[b]
    /\ IF term[q] = term[b] THEN votedFor[q] \in {None, b} ELSE TRUE
    /\ IF Defect = "ElectStale" THEN TRUE ELSE UpToDate(log[b], log[q])
    /\ term' = [term EXCEPT ![q] = term[b]]
    /\ votedFor' = [votedFor EXCEPT ![q] = b]
    /\ role' = [role EXCEPT ![q] = "follower"]
    /\ votes' = [votes EXCEPT ![q] = {}, ![b] = votes[b] \cup {q}]
    /\ acked' = [acked EXCEPT ![q] = NoAcks]
    /\ UNCHANGED <<log, durable, commitIndex, applied, shard, kv, mid, nextCid, reply, conf, nconf>>

(* An empty entry of term t: a new leader's first entry (EmptyEntries).    *)
EmptyEntry(t) == [term |-> t, cid |-> 0, kind |-> "none", exp |-> 0, part |-> "whole", voters |-> {}, learners |-> {}]

(* A candidate whose votes are a quorum of its voters leads its term (and  *)
(* appends its term's empty entry, when EmptyEntries).                     *)
Promote(b) ==
    /\ role[b] = "candidate"
    /\ QuorumIn(votes[b], Voters(b))
    /\ role' = [role EXCEPT ![b] = "leader"]
    /\ votes' = [votes EXCEPT ![b] = {}]
    /\ log' = IF EmptyEntries THEN [log EXCEPT ![b] = Append(log[b], EmptyEntry(term[b]))] ELSE log
    /\ UNCHANGED <<term, votedFor, acked, durable, commitIndex, applied, shard, kv, mid, nextCid, reply, conf, nconf>>

(* A client's commit reaches leader b (a deposed leader that has not yet   *)
(* heard of the newer term too).  commit_if expects the next offset of b's *)
(* applied shard log, as the client last read it there (with ExpChoice:    *)
(* any offset 1..MaxCommits its client picks: it read a tail that writes   *)
(* pipelined before it move).                                              *)
Propose(b) ==
    /\ role[b] = "leader"
    /\ nextCid <= MaxCommits
    /\ LET kind == Kind[nextCid]
           Exps == IF kind /= "commit_if" THEN {0}
                   ELSE IF ExpChoice THEN 1..MaxCommits ELSE {Len(shard[b]) + 1}
           Mk(part, x) == [term |-> term[b], cid |-> nextCid, kind |-> kind, exp |-> x, part |-> part, voters |-> {}, learners |-> {}]
           New(e) == IF Variant = "SplitRecords"
                     THEN << Mk("event", e), Mk("state", IF e = 0 THEN 0 ELSE e + 1) >>
                     ELSE << Mk("whole", e) >>
       IN \E e \in Exps : log' = [log EXCEPT ![b] = log[b] \o New(e)]
    /\ nextCid' = nextCid + 1
    /\ UNCHANGED <<term, votedFor, role, votes, acked, durable, commitIndex, applied, shard, kv, mid, reply, conf, nconf>>

(* The simple changes leader l may propose from its configuration: remove *)
(* a voter other than itself, add a spare as a learner, promote a learner. *)
NextConfs(l) ==
    LET v == conf[l].voters
        ln == conf[l].learners
    IN {[voters |-> v \ {q}, learners |-> ln] : q \in v \ {l}}
       \cup {[voters |-> v, learners |-> ln \cup {s}] : s \in Spares \ (v \cup ln)}
       \cup {[voters |-> v \cup {s}, learners |-> ln \ {s}] : s \in ln}

(* Leader l appends a membership change, as raft allows one: l has        *)
(* applied an entry of its own term (raft's leader commits its election's  *)
(* empty entry first) and every change its log holds (one at a time).     *)
Reconfigure(l) ==
    /\ role[l] = "leader"
    /\ nconf < MaxReconfigs
    /\ {i \in 1..applied[l] : log[l][i].term = term[l]} /= {}  \* a set, not \E: TLC would branch per witness
    /\ \A i \in (applied[l] + 1)..Len(log[l]) : log[l][i].kind /= "conf"
    /\ \E c \in NextConfs(l) :
          log' = [log EXCEPT ![l] = Append(log[l],
                    [term |-> term[l], cid |-> 0, kind |-> "conf", exp |-> 0, part |-> "whole", voters |-> c.voters, learners |-> c.learners])]
    /\ nconf' = nconf + 1
    /\ UNCHANGED <<term, votedFor, role, votes, acked, durable, commitIndex, applied, shard, kv, mid, nextCid, reply, conf>>

RECURSIVE CommonFrom(_, _, _)
CommonFrom(l, m, i) == IF i > Len(l) \/ i > Len(m) \/ l[i] /= m[i] THEN i - 1 ELSE CommonFrom(l, m, i + 1)

(* Leader l's append message reaches q, whose term is not newer: it        *)
(* carries l's term, the next entry q lacks and l's commit mark.  q moves  *)
(* to l's term as its follower, drops a conflicting suffix, persists its   *)
(* log, and its acknowledgement of the prefix it shares with l reaches l.  *)
(* A step that changes nothing is not taken.                               *)
Replicate(l, q) ==
    /\ role[l] = "leader"
    /\ q /= l
    /\ q \in Members(l)
    /\ term[q] <= term[l]
    /\ LET ll == log[l]
           m == CommonFrom(log[q], ll, 1)
           nl == IF m < Len(ll) THEN Append(SubSeq(log[q], 1, m), ll[m + 1]) ELSE log[q]
           matched == IF m < Len(ll) THEN m + 1 ELSE m
           nc == IF commitIndex[q] >= Min(commitIndex[l], matched)
                 THEN commitIndex[q] ELSE Min(commitIndex[l], matched)
       IN /\ log' = [log EXCEPT ![q] = nl]
          /\ durable' = [durable EXCEPT ![q] = Len(nl)]
          /\ commitIndex' = [commitIndex EXCEPT ![q] = nc]
          /\ term' = [term EXCEPT ![q] = term[l]]
          /\ votedFor' = IF term[q] < term[l] THEN [votedFor EXCEPT ![q] = None] ELSE votedFor
          /\ role' = [role EXCEPT ![q] = "follower"]
          /\ votes' = [votes EXCEPT ![q] = {}]
          /\ acked' = [acked EXCEPT ![q] = NoAcks, ![l][q] = matched]
    /\ UNCHANGED <<applied, shard, kv, mid, nextCid, reply, conf, nconf>>
    /\ vars' /= vars

(* Leader l moves its committed mark to the highest index of its own term  *)
(* that a quorum of its voters holds: itself on disk, the others as they   *)
(* acknowledged.                                                           *)
AdvanceCommit(l) ==
    /\ role[l] = "leader"
    /\ LET Holders(n) == {q \in Brokers : IF q = l THEN durable[l] >= n ELSE acked[l][q] >= n}
           cands == {n \in (commitIndex[l] + 1)..Len(log[l]) :
                        /\ log[l][n].term = term[l]
                        /\ IF Defect = "CommitWithoutQuorum"
                           THEN Holders(n) /= {}
                           ELSE QuorumIn(Holders(n), Voters(l))}
       IN /\ cands /= {}
          /\ commitIndex' = [commitIndex EXCEPT ![l] = Max(cands)]
    /\ UNCHANGED <<term, votedFor, role, votes, acked, log, durable, applied, shard, kv, mid, nextCid, reply, conf, nconf>>

Written(p, b) == p.kind = "commit" \/ p.exp = Len(shard[b]) + 1 \/ Defect = "ConditionAtProposal"

(* A leader answers a client once it has applied the commit's last part:   *)
(* written at the offset of its event, or refused with the true next       *)
(* offset.  exp is the offset the commit_if expected (0 for a commit);     *)
(* term the answering leader's term.                                       *)
Answer(b, p, idx, w, sh) ==
    IF role[b] = "leader" /\ reply[p.cid].st = "none" /\ p.part /= "event"
    THEN LET x == IF p.part = "state" /\ p.exp /= 0 THEN p.exp - 1 ELSE p.exp
         IN reply' = [reply EXCEPT ![p.cid] =
            IF w THEN [st |-> "written", at |-> Len(sh) - (IF p.part = "state" THEN 1 ELSE 0), idx |-> idx, exp |-> x, term |-> term[b]]
                 ELSE [st |-> "refused", at |-> Len(sh) + 1, idx |-> idx, exp |-> x, term |-> term[b]]]
    ELSE UNCHANGED reply

(* b applies its next committed proposal: a written record reaches the     *)
(* shard log and the state view together (in PartialApply, only the event); *)
(* an empty entry writes nothing.                                          *)
Apply(b) ==
    /\ ~mid[b]
    /\ applied[b] < commitIndex[b]
    /\ log[b][applied[b] + 1].kind /= "conf"
    /\ LET i == applied[b] + 1
           p == log[b][i]
           r == [cid |-> p.cid, kind |-> p.kind, exp |-> p.exp, part |-> p.part]
           w == Written(p, b)
           sh == IF w THEN Append(shard[b], r) ELSE shard[b]
       IN IF p.kind = "none"
          THEN /\ applied' = [applied EXCEPT ![b] = i]
               /\ UNCHANGED <<shard, kv, mid, reply>>
          ELSE IF w /\ Variant = "PartialApply"
          THEN /\ shard' = [shard EXCEPT ![b] = sh]
               /\ mid' = [mid EXCEPT ![b] = TRUE]
               /\ UNCHANGED <<applied, kv, reply>>
          ELSE /\ shard' = [shard EXCEPT ![b] = sh]
               /\ kv' = [kv EXCEPT ![b] = IF w THEN ApplyRecord(kv[b], r, Len(sh)) ELSE kv[b]]
               /\ applied' = [applied EXCEPT ![b] = i]
               /\ Answer(b, p, i, w, sh)
               /\ UNCHANGED mid
    /\ UNCHANGED <<term, votedFor, role, votes, acked, log, durable, commitIndex, nextCid, conf, nconf>>

(* b applies its next committed proposal, a membership change: its        *)
(* configuration becomes the change's (re-applying one older than the     *)
(* configuration b kept across a crash changes nothing).                   *)
ApplyConf(b) ==
    /\ ~mid[b]
    /\ applied[b] < commitIndex[b]
    /\ LET i == applied[b] + 1
           p == log[b][i]
       IN /\ p.kind = "conf"
          /\ applied' = [applied EXCEPT ![b] = i]
          /\ conf' = IF i > conf[b].at
                     THEN [conf EXCEPT ![b] = [at |-> i, voters |-> p.voters, learners |-> p.learners]]
                     ELSE conf
    /\ UNCHANGED <<term, votedFor, role, votes, acked, log, durable, commitIndex, shard, kv, mid, nextCid, reply, nconf>>

(* PartialApply only: the state half of the record b is applying.          *)
ApplyState(b) ==
    /\ mid[b]
    /\ LET i == applied[b] + 1
           o == Len(shard[b])
       IN /\ kv' = [kv EXCEPT ![b] = ApplyRecord(kv[b], shard[b][o], o)]
          /\ applied' = [applied EXCEPT ![b] = i]
          /\ mid' = [mid EXCEPT ![b] = FALSE]
          /\ Answer(b, log[b][i], i, TRUE, shard[b])
    /\ UNCHANGED <<term, votedFor, role, votes, acked, log, durable, commitIndex, shard, nextCid, conf, nconf>>

(* b crashes and restarts: its term, its vote and the persisted prefix of  *)
(* its raft log survive; the unpersisted tail, the commit mark, the        *)
(* applied views, its role and the messages it had received are lost      *)
(* (state is rebuilt by re-applying the log); its configuration, stored   *)
(* with its applied index, survives.                                       *)
Crash(b) ==
    /\ log' = [log EXCEPT ![b] = SubSeq(log[b], 1, durable[b])]
    /\ commitIndex' = [commitIndex EXCEPT ![b] = 0]
    /\ applied' = [applied EXCEPT ![b] = 0]
    /\ shard' = [shard EXCEPT ![b] = << >>]
    /\ kv' = [kv EXCEPT ![b] = EmptyView]
    /\ mid' = [mid EXCEPT ![b] = FALSE]
    /\ role' = [role EXCEPT ![b] = "follower"]
    /\ votes' = [votes EXCEPT ![b] = {}]
    /\ acked' = [acked EXCEPT ![b] = NoAcks]
    /\ UNCHANGED <<term, votedFor, durable, nextCid, reply, conf, nconf>>

(* b crashes and restarts as the broker does: it keeps its commit mark (cut *)
(* to its persisted log) and its applied state, which the broker stores    *)
(* in one commit with what they cover; so a broker that applied past its   *)
(* persisted log (the model's leader applies what only its followers       *)
(* persisted) is not one the broker's store holds: no such crash.          *)
CrashKeep(b) ==
    /\ ~mid[b]
    /\ applied[b] <= durable[b]
    /\ log' = [log EXCEPT ![b] = SubSeq(log[b], 1, durable[b])]
    /\ commitIndex' = [commitIndex EXCEPT ![b] = Min(commitIndex[b], durable[b])]
    /\ role' = [role EXCEPT ![b] = "follower"]
    /\ votes' = [votes EXCEPT ![b] = {}]
    /\ acked' = [acked EXCEPT ![b] = NoAcks]
    /\ UNCHANGED <<term, votedFor, durable, applied, shard, kv, mid, nextCid, reply, conf, nconf>>

(* b's log reaches its disk (in practice: the leader's own appends).       *)
Persist(b) ==
    /\ durable[b] < Len(log[b])
    /\ durable' = [durable EXCEPT ![b] = Len(log[b])]
    /\ UNCHANGED <<term, votedFor, role, votes, acked, log, commitIndex, applied, shard, kv, mid, nextCid, reply, conf, nconf>>

Next ==
    \/ \E b \in Brokers : Timeout(b)
    \/ \E q, b \in Brokers : Vote(q, b)
    \/ \E b \in Brokers : Promote(b)
    \/ \E b \in Brokers : Propose(b)
    \/ \E b \in Brokers : Persist(b)
    \/ \E l, q \in Brokers : Replicate(l, q)
    \/ \E b \in Brokers : AdvanceCommit(b)
    \/ \E b \in Brokers : Apply(b)
    \/ \E b \in Brokers : ApplyState(b)
    \/ "forget" \in CrashKinds /\ \E b \in Brokers : Crash(b)
    \/ "keep" \in CrashKinds /\ \E b \in Brokers : CrashKeep(b)
    \/ \E b \in Brokers : Reconfigure(b)
    \/ \E b \in Brokers : ApplyConf(b)

Spec == Init /\ [][Next]_vars

-----------------------------------------------------------------------------
(* Invariants (names as in DESIGN.md).                                     *)

(* No reader sees a commit's event without its state, or its state without its event. *)
NoPartialCommit ==
    \A b \in Brokers : [k \in Keys |-> StateGet(b, k).val] = ImpliedValues(SubscriberSees(b))

(* A state read's version is the offset of a record that put that value.   *)
VersionIsOffset ==
    \A b \in Brokers, k \in Keys :
        LET e == kv[b][k] IN
        e.val /= 0 =>
            /\ e.ver \in 1..Len(shard[b])
            /\ shard[b][e.ver].cid = e.val
            /\ HasState(shard[b][e.ver])
            /\ \E i \in DOMAIN Ops[e.val] : Ops[e.val][i] = [op |-> "put", key |-> k]

(* Every broker's state view is the fold of its applied shard log.         *)
StateMatchesLog ==
    \A b \in Brokers : mid[b] \/ kv[b] = Fold(shard[b])

(* The voter sets a commit at index x may have been counted over, read    *)
(* from log l holding it: the initial one and those of the changes before  *)
(* x (a leader counts over its applied configuration, whose change comes   *)
(* before every entry it has yet to commit).                               *)
VotersBefore(l, x) == {InitVoters} \cup {l[j].voters : j \in {j \in 1..(x - 1) : l[j].kind = "conf"}}

(* An acknowledged record survives every failover at its acknowledged      *)
(* offset: a quorum (of a configuration it may have been committed in)     *)
(* holds it on disk, every leader of the answering leader's term or a      *)
(* later one holds it, and every replica that has applied that far has it  *)
(* there.                                                                  *)
CommittedNeverLost ==
    \A c \in 1..MaxCommits : reply[c].st = "written" =>
        LET r == reply[c]
            H == {q \in Brokers : durable[q] >= r.idx /\ log[q][r.idx].cid = c}
        IN
        /\ \A b \in Brokers : Len(shard[b]) >= r.at => shard[b][r.at].cid = c
        /\ \E q \in H : \E V \in VotersBefore(log[q], r.idx) : QuorumIn(H, V)
        /\ \A l \in Brokers : role[l] = "leader" /\ term[l] >= r.term =>
              Len(log[l]) >= r.idx /\ log[l][r.idx].cid = c

(* Replicas never disagree on a committed index or an applied offset.      *)
CommittedPrefixAgreement ==
    \A b1, b2 \in Brokers :
        /\ \A i \in 1..Min(commitIndex[b1], commitIndex[b2]) : log[b1][i] = log[b2][i]
        /\ \A o \in 1..Min(Len(shard[b1]), Len(shard[b2])) : shard[b1][o] = shard[b2][o]

(* A written commit_if sits at its expected offset; a refused one wrote    *)
(* nothing and reported the true tail, not the offset it expected.  (Log  *)
(* entries hold commits in increasing id order, so the records before     *)
(* commit c are those of commits with smaller ids.)                       *)
ConditionalWrites ==
    /\ \A b \in Brokers : \A o \in 1..Len(shard[b]) :
          shard[b][o].kind = "commit_if" => shard[b][o].exp = o
    /\ \A c \in 1..MaxCommits :
          /\ reply[c].st = "refused" =>
                /\ reply[c].at /= reply[c].exp
                /\ \A b \in Brokers : \A o \in 1..Len(shard[b]) : shard[b][o].cid /= c
                \* the true tail: on a broker that applied past the refusal,
                \* one more than the records of the commits before c
                /\ \A b \in Brokers : applied[b] >= reply[c].idx =>
                      reply[c].at = 1 + Cardinality({o \in 1..Len(shard[b]) : shard[b][o].cid < c})
          /\ (reply[c].st = "written" /\ reply[c].exp /= 0) => reply[c].at = reply[c].exp

=============================================================================
