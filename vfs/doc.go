// Package vfs is the small filesystem interface the durable store runs on,
// with a real-OS implementation (OS) and an in-memory one (Mem) that knows
// which bytes were synced, so that a simulated crash loses exactly what was
// not.
//
// Names are slash-separated paths relative to the filesystem's root. vfs
// imports nothing from felixsim; the simulator wraps an FS with faults.
// The OS filesystem lives in os.go and nowhere else in felixsim's simulated
// path. Scratch makes an unlinked temporary file, and LineFile keeps
// counted lines in one: the spill the history, the relay sink and the
// brokers' steps use to wait out of memory (linefile.go).
package vfs
