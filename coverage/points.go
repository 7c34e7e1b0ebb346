package coverage

import "fmt"

// Declaration states what one point counts and whether a sweep over the CI
// seed range must reach it at least once.
type Declaration struct {
	Point Point
	// Statement says in one line what a visit of the point is.
	Statement string
	// Sometimes says the point must be reached at least once over the CI
	// seed range of the default run (a path that only a planted defect or
	// a special configuration takes says false).
	Sometimes bool
}

// The declared points. Adding a point is one constant and one entry in
// declarations.
const (
	// RaftFailover: a shard group's leadership passed to another broker.
	RaftFailover Point = "raft.failover"
)

var declarations = []Declaration{
	{RaftFailover, "a raft group elected a leader other than its previous one", true},
}

// FaultFired names the point counting faults of the named kind that the
// world applied.
func FaultFired(kind string) Point { return Point(fmt.Sprintf("fault.%s.fired", kind)) }

// FaultEffect names the point counting faults of the named kind that had
// an observable effect (what counts as one is stated by the kind's entry
// in the fault table).
func FaultEffect(kind string) Point { return Point(fmt.Sprintf("fault.%s.effect", kind)) }

// Declared lists every declared point in declaration order.
func Declared() []Declaration { return append([]Declaration(nil), declarations...) }

func init() {
	seen := map[Point]bool{}
	for _, d := range declarations {
		if d.Point == "" || d.Statement == "" || seen[d.Point] {
			panic(fmt.Sprintf("coverage: bad declaration %+v (empty, or a duplicate name)", d))
		}
		seen[d.Point] = true
	}
}
