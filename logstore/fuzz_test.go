package logstore

import (
	"encoding/binary"
	"errors"
	"strings"
	"testing"

	"github.com/felixsim/felixsim/vfs"
)

// fuzzBase commits a fixed series of batches and returns the file, the file
// size after each prefix of k transactions (sizes[0] is the bare header) and
// the store's dump after each prefix.
func fuzzBase(tb testing.TB) (file []byte, sizes []int, dumps []string) {
	mem := vfs.NewMem()
	s, err := Open(Options{FS: mem})
	if err != nil {
		tb.Fatal(err)
	}
	sizes, dumps = []int{int(s.sizeBytes)}, []string{dump(s)}
	batches := []*Batch{
		fullBatch(scopeOf("a", 0), 1, 1),
		fullBatch(scopeOf("b", 0), 2, 1),
		fullBatch(scopeOf("a", 0), 1, 2),
		{Outbox: []OutboxRow{{Kind: WriteDelete, Scope: scopeOf("a", 0), Offset: 1}}},
		fullBatch(scopeOf("a", 1), 3, 1),
	}
	for _, b := range batches {
		mustCommit(tb, s, b)
		sizes, dumps = append(sizes, int(s.sizeBytes)), append(dumps, dump(s))
	}
	file, err = vfs.ReadAll(mem, FileName)
	if err != nil {
		tb.Fatal(err)
	}
	return file, sizes, dumps
}

// flip encodes one corruption for FuzzRecover: xor mask into the byte at
// offset (taken modulo the file length).
func flip(offset uint32, mask byte) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, offset), mask)
}

// FuzzRecover damages a valid store file (truncation plus byte flips) and
// opens it: never a panic; either an ErrCorrupt error naming the file and
// offset, or exactly the transactions whose bytes up to their first marker
// copy lie before the first damaged byte (a clean truncation of the torn
// tail), after which the store still commits and reopens.
func FuzzRecover(f *testing.F) {
	base, sizes, dumps := fuzzBase(f)
	f.Add(uint32(len(base)), []byte{})
	f.Add(uint32(sizes[2]+11), []byte{})
	f.Add(uint32(sizes[0]-3), []byte{})
	f.Add(uint32(len(base)), flip(uint32(sizes[1]+20), 0x04))
	f.Add(uint32(len(base)), flip(uint32(len(base)-2), 0x80))
	f.Add(uint32(sizes[3]), flip(uint32(sizes[3]-5), 0xff))
	f.Fuzz(func(t *testing.T, keep uint32, flips []byte) {
		file := append([]byte(nil), base[:min(int(keep), len(base))]...)
		for i := 0; i+5 <= len(flips) && len(file) > 0; i += 5 {
			file[binary.LittleEndian.Uint32(flips[i:])%uint32(len(file))] ^= flips[i+4]
		}
		damage := len(file) // the first byte that differs from the valid file
		for i := range file {
			if file[i] != base[i] {
				damage = i
				break
			}
		}
		mem := vfs.NewMem()
		w, err := mem.Create(FileName)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(file)
		w.Sync()
		mem.SyncDir(".")
		s, err := Open(Options{FS: mem})
		if err != nil {
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), FileName+" at byte ") {
				t.Fatalf("open failed without naming the corruption: %v", err)
			}
			if damage == len(file) && len(file) == min(int(keep), len(base)) && len(file) >= sizes[0] {
				t.Fatalf("a clean truncation at byte %d was refused: %v", len(file), err)
			}
			return
		}
		// Transaction k+1 is in if its bytes up to the first copy of its
		// commit marker come before the damage.
		k := 0
		for k+1 < len(sizes) && sizes[k+1]-commitFrameBytes <= damage {
			k++
		}
		if got := dump(s); got != dumps[k] {
			t.Fatalf("recovered store (damage at byte %d) is not the %d transactions before it:\n%s\nwant:\n%s", damage, k, got, dumps[k])
		}
		if err := s.Commit(fullBatch(scopeOf("z", 9), 9, 1)); err != nil {
			t.Fatalf("commit after recovery: %v", err)
		}
		s.Close()
		s2, err := Open(Options{FS: mem})
		if err != nil {
			t.Fatalf("reopen after recovery and a commit: %v", err)
		}
		if n := len(s2.LogScan(scopeOf("z", 9), 0, 0)); n != 1 {
			t.Fatalf("commit after recovery lost on reopen: %d rows", n)
		}
	})
}

// FuzzOpenAnyFile opens arbitrary file content: an error or a store, never
// a panic; a store it opens must reopen to the same content.
func FuzzOpenAnyFile(f *testing.F) {
	base, sizes, _ := fuzzBase(f)
	f.Add(base)
	f.Add(base[:sizes[1]])
	f.Add(base[:sizes[2]-4])
	f.Add([]byte{})
	f.Add(headerFrame())
	f.Fuzz(func(t *testing.T, file []byte) {
		mem := vfs.NewMem()
		w, err := mem.Create(FileName)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(file)
		w.Sync()
		mem.SyncDir(".")
		s, err := Open(Options{FS: mem})
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("open failed with an error that is not ErrCorrupt: %v", err)
			}
			return
		}
		want := dump(s)
		s.Close()
		s2, err := Open(Options{FS: mem})
		if err != nil {
			t.Fatalf("reopen of a store that opened: %v", err)
		}
		if got := dump(s2); got != want {
			t.Fatalf("reopen differs:\n%s\nwant:\n%s", got, want)
		}
	})
}

// FuzzDecodeFrame decodes arbitrary frame payloads of every kind: an error
// or rows, never a panic; the table decoders are canonical (decoding then
// encoding gives back the input), and every decoded batch re-decodes equal.
func FuzzDecodeFrame(f *testing.F) {
	b := fullBatch(scopeOf("a", 0), 1, 1)
	raftFrame, tables, err := encodeTxn(b)
	if err != nil {
		f.Fatal(err)
	}
	for _, fr := range append([][]byte{raftFrame}, tables[:]...) {
		kind, p, _, err := parseFrame(fr, 0)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(kind), p)
	}
	f.Fuzz(func(t *testing.T, kind uint8, payload []byte) {
		var again func(Batch) []byte
		frame := rawFrame{kind: frameKind(kind), payload: payload}
		switch frame.kind {
		case kindLog:
			again = func(b Batch) []byte { return encodeLog(b.Log) }
		case kindState:
			again = func(b Batch) []byte { return encodeState(b.State) }
		case kindPosition:
			again = func(b Batch) []byte { return encodePositions(b.Positions) }
		case kindOutbox:
			again = func(b Batch) []byte { return encodeOutbox(b.Outbox) }
		case kindConsumerGroup:
			again = func(b Batch) []byte { return encodeConsumerGroups(b.ConsumerGroups) }
		case kindRaft:
			again = func(b Batch) []byte { return encodeGroups(b.Groups) }
		}
		got, err := decodeTxn([]rawFrame{frame}, &Batch{})
		if err != nil || again == nil {
			return
		}
		enc := again(got)
		if frame.kind != kindRaft && string(enc) != string(payload) {
			t.Fatalf("%s payload %x re-encodes as %x: the decoder is not strict", frame.kind, payload, enc)
		}
		got2, err := decodeTxn([]rawFrame{{kind: frame.kind, payload: enc}}, &Batch{})
		if err != nil {
			t.Fatalf("re-encoded %s payload does not decode: %v", frame.kind, err)
		}
		if string(again(got2)) != string(enc) {
			t.Fatalf("%s payload does not round-trip", frame.kind)
		}
	})
}
