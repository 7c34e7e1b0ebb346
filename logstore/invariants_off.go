//go:build !invariants

package logstore

// invariantsOn turns on the expensive invariant checks (build tag
// invariants): every Commit also decodes what it wrote and panics if that
// differs from what it installed.
const invariantsOn = false
