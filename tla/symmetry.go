package tla

import "bytes"

// Symmetry reduction, as TLC's SYMMETRY Permutations(Brokers): the brokers
// are interchangeable (the model names them only as model values), so two
// states that differ by a renaming of the brokers are one state. A state
// is stored under its canonical form, the renaming whose bytes are least;
// TLC stores the least fingerprint among the renamings instead, which
// partitions the states into the same classes, so the counts agree.

// permutations[n] lists the permutations of n brokers: perm[b] is the new
// index of broker b.
var permutations = func() [BrokersMax + 1][][BrokersMax]uint8 {
	var out [BrokersMax + 1][][BrokersMax]uint8
	for n := 1; n <= BrokersMax; n++ {
		var rec func(p [BrokersMax]uint8, used uint8, k int)
		rec = func(p [BrokersMax]uint8, used uint8, k int) {
			if k == n {
				out[n] = append(out[n], p)
				return
			}
			for v := 0; v < n; v++ {
				if used&(1<<v) == 0 {
					p[k] = uint8(v)
					rec(p, used|1<<v, k+1)
				}
			}
		}
		rec([BrokersMax]uint8{}, 0, 0)
	}
	return out
}()

// permute returns s with broker b renamed perm[b] (the first n brokers;
// the spares after them keep their names): its variables move to slot
// perm[b], and every broker it names (votes, acknowledgements and
// configurations, in its variables and its log) is renamed.
func permute(s *State, perm *[BrokersMax]uint8, n int) State {
	var full [BrokersMax]uint8
	for q := range full {
		full[q] = uint8(q)
		if q < n {
			full[q] = perm[q]
		}
	}
	set := func(x uint8) uint8 {
		var out uint8
		for q := 0; q < BrokersMax; q++ {
			if x&(1<<q) != 0 {
				out |= 1 << full[q]
			}
		}
		return out
	}
	t := State{nextCid: s.nextCid, nconf: s.nconf, reply: s.reply}
	for b := 0; b < BrokersMax; b++ {
		br := s.b[b]
		if br.votedFor != 0 {
			br.votedFor = full[br.votedFor-1] + 1
		}
		var acked [BrokersMax]uint8
		for q := 0; q < BrokersMax; q++ {
			acked[full[q]] = br.acked[q]
		}
		br.votes, br.acked = set(br.votes), acked
		br.voters, br.learners = set(br.voters), set(br.learners)
		for i := uint8(0); i < br.logLen; i++ {
			if e := &br.log[i]; e.kind == kindConf {
				e.voters, e.learners = set(e.voters), set(e.learners)
			}
		}
		t.b[full[b]] = br
	}
	return t
}

// canonical returns the least renaming of s (by its bytes) over the
// permutations of its first n brokers (the spares after them are not
// interchangeable with them).
func canonical(s *State, n int) State {
	best := *s
	for _, p := range permutations[n][1:] {
		t := permute(s, &p, n)
		if bytes.Compare(t.bytes(), best.bytes()) < 0 {
			best = t
		}
	}
	return best
}
