package sweep

// repeatScale is the resolution of the repeat fraction: parts per million.
const repeatScale = 1_000_000

// Repeated reports whether a sweep with this repeat fraction (0..1) runs
// seed twice. The choice is a hash of the seed alone, so every shard of a
// sweep, and a rerun of it, picks the same seeds; a fraction of 1 picks
// every seed and 0 none.
func Repeated(seed uint64, fraction float64) bool {
	ppm := uint64(fraction*repeatScale + 0.5)
	return mix64(seed)%repeatScale < ppm
}

// mix64 is SplitMix64's finalizer: neighbouring seeds land far apart.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
