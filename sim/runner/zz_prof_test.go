package runner

import "testing"

func BenchmarkZZSeed5(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := Run(Options{Seed: 5}); err != nil {
			b.Fatal(err)
		}
	}
}
