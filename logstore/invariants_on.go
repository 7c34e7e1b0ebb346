//go:build invariants

package logstore

// invariantsOn turns on the expensive invariant checks: every Commit also
// decodes what it wrote and panics if that differs from what it installed.
const invariantsOn = true
