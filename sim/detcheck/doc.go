// Package detcheck is the source check behind felixsim's determinism rules:
// it parses a package's non-test Go files and reports wall-clock reads,
// global math/rand, crypto/rand, hash/maphash, OS access, goroutines,
// channels and select, and ranges over maps whose order could reach
// behaviour. A finding is silenced only by a `//det:ok <reason>` comment on
// its line or the line above.
//
// detcheck uses only the standard library's go/ast, go/parser and go/types;
// it must not import any felixsim package.
package detcheck
