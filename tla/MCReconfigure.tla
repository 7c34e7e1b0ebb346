---------------------------- MODULE MCReconfigure ----------------------------
(***************************************************************************)
(* MCFelixAtomicCommit's constants plus one spare identity, b4, outside   *)
(* the initial configuration {b1, b2, b3}, which a membership change may  *)
(* add as a learner.  The brokers b1..b3 stay interchangeable (Symm, the  *)
(* permutations of MCBrokers); b4 is not.                                  *)
(***************************************************************************)
EXTENDS MCFelixAtomicCommit

CONSTANTS b4

MCBrokersSpare == MCBrokers \cup {b4}
MCSpares == {b4}
=============================================================================
