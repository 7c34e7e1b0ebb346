package vfs

import (
	"errors"
	"testing"
)

// TestDurableReadAtReadsWhatACrashKeeps: DurableReadAt sees the synced
// bytes of the durable entry only, and agrees with what a LoseUnsynced
// crash then leaves.
func TestDurableReadAtReadsWhatACrashKeeps(t *testing.T) {
	m := NewMem()
	f, err := m.Create("a")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := m.DurableReadAt("a", nil, 0); !errors.Is(err, ErrNotExist) {
		t.Fatalf("a file whose entry was never synced: %v, want ErrNotExist", err)
	}
	if err := m.SyncDir("."); err != nil {
		t.Fatal(err)
	}
	if _, size, err := m.DurableReadAt("a", nil, 0); err != nil || size != 0 {
		t.Fatalf("an empty durable file: size %d, %v", size, err)
	}
	mustWrite(t, f, "hello")
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	mustWrite(t, f, " world") // not synced
	p := make([]byte, 16)
	n, size, err := m.DurableReadAt("a", p, 0)
	if err != nil || size != 5 || string(p[:n]) != "hello" {
		t.Fatalf("durable read = %q, size %d, %v; want hello, 5", p[:n], size, err)
	}
	if n, _, _ := m.DurableReadAt("a", p, 3); string(p[:n]) != "lo" {
		t.Fatalf("durable read from 3 = %q, want lo", p[:n])
	}
	if n, _, _ := m.DurableReadAt("a", p, 9); n != 0 {
		t.Fatalf("durable read past the synced length read %d bytes", n)
	}
	// A file renamed over it is durable only once its directory is synced.
	g, _ := m.Create("b")
	mustWrite(t, g, "new")
	if err := g.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := m.Rename("b", "a"); err != nil {
		t.Fatal(err)
	}
	if n, _, _ := m.DurableReadAt("a", p, 0); string(p[:n]) != "hello" {
		t.Fatalf("before the directory sync: %q, want the old hello", p[:n])
	}
	if err := m.SyncDir("."); err != nil {
		t.Fatal(err)
	}
	if n, _, _ := m.DurableReadAt("a", p, 0); string(p[:n]) != "new" {
		t.Fatalf("after the directory sync: %q, want new", p[:n])
	}
	mustWrite(t, g, "er") // unsynced again
	n, _, _ = m.DurableReadAt("a", p, 0)
	want := string(p[:n])
	m.Crash(LoseUnsynced)
	h, err := m.Open("a")
	if err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 16)
	k, _ := h.ReadAt(got, 0)
	if string(got[:k]) != want {
		t.Fatalf("a crash kept %q, DurableReadAt read %q", got[:k], want)
	}
}

func mustWrite(t *testing.T, f File, s string) {
	t.Helper()
	if _, err := f.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
}
