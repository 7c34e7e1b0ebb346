package detcheck

import "testing"

// BenchmarkCheckModule runs both checks over the real tree, the cost that
// `make test` pays once.
func BenchmarkCheckModule(b *testing.B) {
	root := moduleRoot(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := CheckModule(root); err != nil {
			b.Fatal(err)
		}
	}
}
