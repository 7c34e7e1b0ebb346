package wire

import "hash/fnv"

// Digest is a stable 64-bit summary of the request for a simulator's trace
// hash: FNV-1a 64 over its canonical encoding, or 0 if it cannot be encoded.
// With it, *Request satisfies a network-message interface that asks only for
// Digest() uint64, without wire importing the simulator.
func (q *Request) Digest() uint64 {
	b, err := EncodeRequest(q)
	if err != nil {
		return 0
	}
	return digestOf(b)
}

// Digest is a stable 64-bit summary of the answer, as Request.Digest is.
func (a *Answer) Digest() uint64 {
	b, err := EncodeAnswer(a)
	if err != nil {
		return 0
	}
	return digestOf(b)
}

func digestOf(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}
