// Package detcheck is the source check behind felixsim's determinism and
// layering rules; its one job is to parse the module's non-test Go files
// and report what breaks them. CheckModule runs both checks over a module:
//
//   - Layering (layers.go is the one table, layering.go the check): for
//     every felixsim package, the felixsim packages and outside modules it
//     may import (DESIGN.md's arrows and each package's doc.go, as
//     allow-lists) and the standard-library packages it must not import
//     (statemachine, wire, client, properties and tla take time from their
//     caller and are driven by one goroutine: no time, math/rand, net or
//     sync; statemachine also no files, runtime, reflect or unsafe). A
//     package missing from the table is itself a finding.
//   - Determinism (check.go, maprange.go), on every package the table marks
//     as simulated (statemachine, wire, client, logstore, node, properties,
//     tla, moment, the packages under sim/ but detcheck, shrink, sweep and
//     artifact): wall-clock reads, global
//     math/rand, crypto/rand, hash/maphash, OS access, goroutines, channels
//     and select, and ranges over maps whose order could reach behaviour.
//
// A determinism finding or a forbidden standard import is silenced only by
// a `//det:ok <reason>` comment on its line or the line above; a layering
// finding is not (change the table and the package's doc.go instead).
//
// detcheck uses only the standard library (go/ast, go/parser, go/types,
// os to read the sources); it must not import any felixsim package.
package detcheck
