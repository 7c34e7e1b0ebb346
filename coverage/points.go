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
	// LogstoreRecoverPartial: a store opened after a crash cut away whole
	// frames of a transaction that had no commit marker.
	LogstoreRecoverPartial Point = "logstore.recover.partial"
	// LogstoreRecoverTorn: a store opened after a crash cut away a final
	// transaction torn inside a frame.
	LogstoreRecoverTorn Point = "logstore.recover.torn"
	// LogstoreRecoverSealRestored: a store opened after a crash kept a
	// transaction whose commit marker's copy was torn, and rewrote the copy.
	LogstoreRecoverSealRestored Point = "logstore.recover.seal_restored"
	// ClientRequestToDeposedLeader: a client request reached a broker that
	// still believed it led the request's raft group, after another broker had
	// acknowledged a write in that raft group in a later term.
	ClientRequestToDeposedLeader Point = "client.request.to_deposed_leader"
	// ClientReadToDeposedLeader: the same, for a state read.
	ClientReadToDeposedLeader Point = "client.read.to_deposed_leader"
)

var declarations = []Declaration{
	{RaftFailover, "a raft group elected a leader other than its previous one", true},
	{LogstoreRecoverPartial, "a broker's store, reopened after a crash, cut whole frames of a transaction without its commit marker", true},
	{LogstoreRecoverTorn, "a broker's store, reopened after a crash, cut a final transaction torn inside a frame", true},
	{LogstoreRecoverSealRestored, "a broker's store, reopened after a crash, kept a transaction whose marker copy was torn and rewrote the copy", false},
	{ClientRequestToDeposedLeader, "a client request reached a broker leading its raft group in a term older than one in which another broker acknowledged a write", true},
	{ClientReadToDeposedLeader, "a state read reached a broker leading its raft group in a term older than one in which another broker acknowledged a write", true},
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
