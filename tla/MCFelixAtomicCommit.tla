------------------------- MODULE MCFelixAtomicCommit -------------------------
(***************************************************************************)
(* Small constants for TLC.  Three brokers, two keys, up to three commits  *)
(* (the configs use two, or one when split into two records); MaxTerm 3    *)
(* allows the first promotion, a failover and a second one.                *)
(* The Go mirror (package tla) uses the same commit table.                 *)
(***************************************************************************)
EXTENDS FelixAtomicCommit, TLC

CONSTANTS b1, b2, b3, k1, k2

Put(k) == [op |-> "put", key |-> k]
Del(k) == [op |-> "del", key |-> k]

(* Commit 1 puts both keys, commit 2 overwrites k1 and deletes k2, commit 3 puts k2. *)
AllOps == << << Put(k1), Put(k2) >>, << Put(k1), Del(k2) >>, << Put(k2) >> >>

(* Commit 1 is a plain commit; commits 2 and 3 are commit_if.              *)
AllKind == << "commit", "commit_if", "commit_if" >>

ASSUME MaxCommits <= 3

MCOps == [c \in 1..MaxCommits |-> AllOps[c]]
MCKind == [c \in 1..MaxCommits |-> AllKind[c]]

MCBrokers == {b1, b2, b3}

(* The brokers are interchangeable: TLC stores one state per renaming of them. *)
Symm == Permutations(MCBrokers)
MCKeys == {k1, k2}
=============================================================================
