package felix

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Scope names one stream shard: every offset, key and position is
// meaningful only inside its scope, so every stored key carries one.
type Scope struct {
	Tenant    string
	Namespace string
	Stream    string
	Shard     uint32
}

// String renders the scope as tenant/namespace/stream/shard.
func (s Scope) String() string {
	return s.Tenant + "/" + s.Namespace + "/" + s.Stream + "/" + strconv.FormatUint(uint64(s.Shard), 10)
}

// Less orders scopes by tenant, namespace, stream, then shard.
func (s Scope) Less(o Scope) bool {
	if s.Tenant != o.Tenant {
		return s.Tenant < o.Tenant
	}
	if s.Namespace != o.Namespace {
		return s.Namespace < o.Namespace
	}
	if s.Stream != o.Stream {
		return s.Stream < o.Stream
	}
	return s.Shard < o.Shard
}

// Compare is -1, 0 or +1 as s comes before, equals or comes after o in
// Less's order (for slices.SortFunc and slices.BinarySearchFunc).
func (s Scope) Compare(o Scope) int {
	switch {
	case s.Less(o):
		return -1
	case o.Less(s):
		return 1
	}
	return 0
}

// ErrInvalidScope marks a scope refused for its shape.
var ErrInvalidScope = errors.New("invalid scope")

// Validate checks that every name is present, within NameLenMax and free
// of '/', so that String is one-to-one.
func (s Scope) Validate() error {
	for _, f := range []struct{ what, v string }{{"tenant", s.Tenant}, {"namespace", s.Namespace}, {"stream", s.Stream}} {
		if f.v == "" {
			return fmt.Errorf("%w: empty %s", ErrInvalidScope, f.what)
		}
		if len(f.v) > NameLenMax {
			return fmt.Errorf("%w: %s of %d bytes exceeds %d", ErrInvalidScope, f.what, len(f.v), NameLenMax)
		}
		if strings.ContainsRune(f.v, '/') {
			return fmt.Errorf("%w: %s %q contains '/', the separator of Scope.String", ErrInvalidScope, f.what, f.v)
		}
	}
	return nil
}
