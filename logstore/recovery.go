package logstore

import "fmt"

// RecoveryKind says what Open found past the last committed transaction of
// the file; the zero value is invalid.
type RecoveryKind uint8

// What Open found at the file's tail.
const (
	recoveryInvalid RecoveryKind = iota
	// RecoveryClean: the file ended with a committed transaction (or was
	// new): nothing was cut.
	RecoveryClean
	// RecoveryPartial: whole frames of a transaction followed the last
	// commit marker without a marker of their own (the writer died between
	// two writes of one commit); they were truncated away.
	RecoveryPartial
	// RecoveryTorn: the tail ended inside a frame (cut at a sector or
	// damaged), so the final transaction was torn; it was truncated away.
	RecoveryTorn
	// RecoverySealRestored: the last commit marker was whole but its copy
	// was torn; the transaction was kept and the copy written again.
	RecoverySealRestored
	recoveryKindEnd
)

var recoveryKindNames = [recoveryKindEnd]string{"invalid", "clean", "partial", "torn", "seal-restored"}

// String names the kind.
func (k RecoveryKind) String() string {
	if k < recoveryKindEnd {
		return recoveryKindNames[k]
	}
	return fmt.Sprintf("recovery(%d)", uint8(k))
}

// Recovery reports what Open found past the last committed transaction.
type Recovery struct {
	Kind RecoveryKind
	// CutBytes is how many bytes of the tail Open truncated away.
	CutBytes int64
}

// Recovery returns what Open found at the file's tail and what it cut.
func (s *Store) Recovery() Recovery { return s.recovery }
