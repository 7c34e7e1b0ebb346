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
(* A Restart is the model's Crash followed by its hidden steps (the log's  *)
(* re-apply up to the stored applied index), taken as one step; so is a    *)
(* Snapshot (a leader's committed prefix installed, and its applies).      *)
(*                                                                         *)
(* The Go mirror of this spec is tla.TraceValidator (trace*.go); the make  *)
(* target tlc-trace runs both on the same trace and requires the same      *)
(* verdict at the same step.                                               *)
(***************************************************************************)
EXTENDS Naturals, Sequences, FiniteSets, TLC

CONSTANTS
    NBrokers,  \* the brokers of the cluster, numbered 1..NBrokers
    Tenants,   \* the scopes (tenants) the trace names
    Trace      \* the steps, records with every field (generated, see README)

Brokers == 1..NBrokers
Entry(t, d) == [term |-> t, data |-> d]
Bootstrap == Entry(1, 0)
NoWrite == [tenant |-> "", kind |-> "none", cond |-> FALSE, exp |-> 0, ops |-> 0, dig |-> 0]
WriteKinds == {"publish", "publish_if", "enqueue", "commit", "commit_if"}
Quorum(n) == 2 * n > NBrokers
Min(a, b) == IF a < b THEN a ELSE b
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
    answers     \* [b, client, req, outcome, off]: what applying gave a proposer to answer

vars == <<i, up, log, commit, applied, term, leads, next, proposed, writes, committed, votes, acks, leaders, written, answers>>

Init ==
    /\ i = 1
    /\ up = [b \in Brokers |-> FALSE]
    /\ log = [b \in Brokers |-> << Bootstrap >>]
    /\ commit = [b \in Brokers |-> 1]
    /\ applied = [b \in Brokers |-> 1]
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
       /\ LET Others(r) == r.b /= b IN answers' = SelectSeq(answers, Others)
       /\ UNCHANGED <<term, writes, committed, votes, leaders, written>>

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
       /\ UNCHANGED <<up, term, leads, proposed, writes, committed, votes, acks, leaders, written, answers>>

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
       /\ UNCHANGED <<up, log, commit, applied, next, proposed, writes, committed, acks, leaders, written, answers>>

Timeout(s) == s.cand = s.b /\ VoteOK(s)
Vote(s) == s.cand /= s.b /\ VoteOK(s)

(* Promote(b): b started an election in the term (it voted for itself      *)
(* there); one leader per term; a quorum voted for b, each finding b's log *)
(* at least as up to date as its own when it voted.                        *)
Promote(s) ==
    LET b == s.b
        UpToDate(r) == LastTerm(log[b]) > r.lastTerm \/ (LastTerm(log[b]) = r.lastTerm /\ Len(log[b]) >= r.len)
        voters == {q \in Brokers : /\ <<s.term, q>> \in DOMAIN votes
                                   /\ votes[<<s.term, q>>].cand = b
                                   /\ UpToDate(votes[<<s.term, q>>])}
    IN /\ s.kind = "Promote"
       /\ s.term \notin DOMAIN leaders
       /\ <<s.term, b>> \in DOMAIN votes /\ votes[<<s.term, b>>].cand = b
       /\ Quorum(Cardinality(voters))
       /\ leaders' = (s.term :> b) @@ leaders
       /\ leads' = [leads EXCEPT ![b] = s.term]
       /\ UNCHANGED <<up, log, commit, applied, term, next, proposed, writes, committed, votes, acks, written, answers>>

(* Propose, its client half: the proposal is the client's write unchanged. *)
Request(s) ==
    /\ s.kind = "Request"
    /\ s.asked /= NoWrite /\ s.asked = s.proposed
    /\ s.data /= 0
    /\ s.data \notin DOMAIN writes
    /\ writes' = (s.data :> [b |-> s.b, client |-> s.client, req |-> s.req, w |-> s.proposed]) @@ writes
    /\ UNCHANGED <<up, log, commit, applied, term, leads, next, proposed, committed, votes, acks, leaders, written, answers>>

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
             /\ es[j].data = 0 \/ es[j].data \in DOMAIN writes
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
       /\ UNCHANGED <<up, applied, term, leads, next, writes, committed, votes, leaders, written, answers>>

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
    /\ UNCHANGED <<up, log, applied, term, leads, next, proposed, writes, committed, votes, acks, leaders, written, answers>>

(* AdvanceCommit: b leads the term of the entry at the mark, a quorum      *)
(* acknowledged storing that entry (followers acknowledge once they        *)
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
       /\ Quorum(Cardinality(holders))
       /\ c > n /\ log[b][n] = committed[n]
       /\ committed' = committed \o SubSeq(log[b], n + 1, c)
       /\ commit' = [commit EXCEPT ![b] = c]
       /\ UNCHANGED <<up, log, applied, term, leads, next, proposed, writes, votes, acks, leaders, written, answers>>

(* Apply(b): b applies its next committed entry.  A client write is        *)
(* written at its scope's next offset unless it is conditional and         *)
(* expected another offset, then refused with that tail; one record or     *)
(* none; every replica writes the same entry at the same offset.  A        *)
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
                                THEN Append(answers, [b |-> b, client |-> wr.client, req |-> wr.req, outcome |-> s.outcome, off |-> s.off])
                                ELSE answers
       /\ UNCHANGED <<up, log, commit, term, leads, proposed, writes, committed, votes, acks, leaders>>

(* Answer: the proposer answers a client only with what applying the       *)
(* client's entry gave it (each such result answers once).                 *)
Answer(s) ==
    LET r == [b |-> s.b, client |-> s.client, req |-> s.req, outcome |-> s.outcome, off |-> s.off]
        js == {j \in 1..Len(answers) : answers[j] = r}
    IN /\ s.kind = "Answer"
       /\ js /= {}
       /\ LET j == CHOOSE j \in js : \A k \in js : j <= k
          IN answers' = SubSeq(answers, 1, j - 1) \o SubSeq(answers, j + 1, Len(answers))
       /\ UNCHANGED <<up, log, commit, applied, term, leads, next, proposed, writes, committed, votes, acks, leaders, written>>

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
    /\ Taken

(* The whole trace was followed: stutter.                                  *)
Done == i > Len(Trace) /\ UNCHANGED vars

Next == TraceStep \/ Done

Spec == Init /\ [][Next]_vars

(* TLC's deadlock check is the refusal; this invariant states the same     *)
(* for a reader: every state is one the trace reached in order.            *)
TypeOK == i \in 1..(Len(Trace) + 1)
=============================================================================
