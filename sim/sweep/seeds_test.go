package sweep

import (
	"math"
	"testing"
)

func TestParseRange(t *testing.T) {
	good := map[string]Range{
		"1..10": {First: 1, Last: 10}, "7": {First: 7, Last: 7}, "5..5": {First: 5, Last: 5},
		"3..": {First: 3, Last: math.MaxUint64, Open: true},
	}
	for s, want := range good {
		got, err := ParseRange(s)
		if err != nil || got != want {
			t.Errorf("ParseRange(%q) = %+v, %v; want %+v", s, got, err, want)
		}
		if back, err := ParseRange(got.String()); err != nil || back != got {
			t.Errorf("%q: String %q reads back as %+v, %v", s, got.String(), back, err)
		}
	}
	for _, s := range []string{"", "0..3", "0", "..5", "5..3", "a..b", "1..2..3", "-1..2", "1...3", "18446744073709551616"} {
		if r, err := ParseRange(s); err == nil {
			t.Errorf("ParseRange(%q) = %+v, want an error", s, r)
		}
	}
}

func TestParseShard(t *testing.T) {
	for _, s := range []string{"1/1", "2/8", "8/8"} {
		sh, err := ParseShard(s)
		if err != nil || sh.String() != s {
			t.Errorf("ParseShard(%q) = %+v, %v", s, sh, err)
		}
	}
	for _, s := range []string{"", "0/2", "3/2", "1/0", "1", "a/b", "1/2/3", "1/100001", "-1/2"} {
		if sh, err := ParseShard(s); err == nil {
			t.Errorf("ParseShard(%q) = %+v, want an error", s, sh)
		}
	}
	if (Shard{}).String() != "1/1" {
		t.Fatalf("the zero shard is %q, want the whole range 1/1", Shard{}.String())
	}
}

// seedsOf lists a schedule's seeds by walking First/Next.
func seedsOf(c Schedule) []uint64 {
	var out []uint64
	for s, ok := c.First(); ok; s, ok = c.Next(s) {
		out = append(out, s)
	}
	return out
}

// TestShardsPartitionTheRange: for ranges and shard counts, the shards'
// seeds are exactly the range's, each once; shard i holds the seeds whose
// distance from the range's start is i-1 modulo n (the statement in the
// help text, checked here by brute force), and Count and Has agree.
func TestShardsPartitionTheRange(t *testing.T) {
	for _, rg := range []Range{{First: 1, Last: 1}, {First: 1, Last: 10}, {First: 5, Last: 17}, {First: 100, Last: 102}} {
		for n := uint64(1); n <= 12; n++ {
			seen := map[uint64]int{}
			for i := uint64(1); i <= n; i++ {
				c := Schedule{Range: rg, Shard: Shard{Index: i, Count: n}}
				got := seedsOf(c)
				var want []uint64
				for s := rg.First; s <= rg.Last; s++ {
					if (s-rg.First)%n == i-1 {
						want = append(want, s)
					}
				}
				if len(got) != len(want) {
					t.Fatalf("%s shard %d/%d: seeds %v, want %v", rg, i, n, got, want)
				}
				for k := range got {
					if got[k] != want[k] || !c.Has(got[k]) {
						t.Fatalf("%s shard %d/%d: seeds %v, want %v", rg, i, n, got, want)
					}
					seen[got[k]]++
				}
				if cnt, known := c.Count(); !known || cnt != uint64(len(want)) {
					t.Fatalf("%s shard %d/%d: Count %d, %v; want %d", rg, i, n, cnt, known, len(want))
				}
			}
			if len(seen) != int(rg.Last-rg.First+1) {
				t.Fatalf("%s in %d shards covers %d seeds", rg, n, len(seen))
			}
			for s, k := range seen {
				if k != 1 {
					t.Fatalf("%s in %d shards: seed %d in %d shards", rg, n, s, k)
				}
			}
		}
	}
}

// TestScheduleAtTheTop: a range ending at the largest seed ends without
// wrapping around, and an open range has no count.
func TestScheduleAtTheTop(t *testing.T) {
	c := Schedule{Range: Range{First: math.MaxUint64 - 2, Last: math.MaxUint64}, Shard: Shard{Index: 2, Count: 2}}
	if got := seedsOf(c); len(got) != 1 || got[0] != math.MaxUint64-1 {
		t.Fatalf("seeds %v", got)
	}
	c.Shard = Shard{Index: 3, Count: 4}
	if got := seedsOf(c); len(got) != 1 || got[0] != math.MaxUint64 {
		t.Fatalf("seeds %v", got)
	}
	c.Shard = Shard{Index: 4, Count: 4}
	if got := seedsOf(c); len(got) != 0 {
		t.Fatalf("seeds %v, want none", got)
	}
	if _, known := (Schedule{Range: Range{First: 1, Last: math.MaxUint64, Open: true}}).Count(); known {
		t.Fatal("an open range has a count")
	}
}

// TestRepeatedFraction: 0 repeats nothing, 1 everything, and 5% picks
// between 4% and 6% of 20000 seeds; the pick depends on the seed alone.
func TestRepeatedFraction(t *testing.T) {
	n, picked := 20000, 0
	for s := uint64(1); s <= uint64(n); s++ {
		if Repeated(s, 0) {
			t.Fatalf("fraction 0 repeats seed %d", s)
		}
		if !Repeated(s, 1) {
			t.Fatalf("fraction 1 skips seed %d", s)
		}
		if Repeated(s, 0.05) {
			picked++
		}
		if Repeated(s, 0.05) != Repeated(s, 0.05) {
			t.Fatalf("seed %d picked one time and not another", s)
		}
	}
	if picked < n*4/100 || picked > n*6/100 {
		t.Fatalf("fraction 0.05 picked %d of %d seeds", picked, n)
	}
}
