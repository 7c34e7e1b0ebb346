package client

import (
	"strings"
	"testing"

	"github.com/felixsim/felixsim/felix"
	"github.com/stretchr/testify/require"
)

// TestCommitValidation: every refused commit names its reason, wraps
// ErrNotSent, returns no handle, and sends nothing at all.
func TestCommitValidation(t *testing.T) {
	ev := func() CommitOp { return Publish("order-events", []byte("e")) }
	bigValue := make([]byte, felix.ValueLenMax+1)
	tooMany := []CommitOp{ev()}
	for i := 0; i <= felix.OpsPerRecordMax; i++ {
		tooMany = append(tooMany, Delete("order-events", "k"))
	}
	cases := []struct {
		name     string
		tenant   string
		ops      []CommitOp
		code     CommitErrorCode
		mentions string
	}{
		{"no operations", "acme", nil, NoEvent, "no operations"},
		{"only state operations", "acme", []CommitOp{Put("order-events", "k", nil), Delete("order-events", "j")}, NoEvent, "all puts and deletes"},
		{"two events", "acme", []CommitOp{ev(), Enqueue("order-events", nil)}, ManyEvents, "second event"},
		{"put on another stream", "acme", []CommitOp{ev(), Put("audit", "k", nil)}, NotOnOwningShard, `names stream "audit"`},
		{"event on another stream", "acme", []CommitOp{Put("order-events", "k", nil), Publish("audit", nil)}, NotOnOwningShard, `names stream "audit"`},
		{"zero CommitOp", "acme", []CommitOp{ev(), {}}, InvalidOperation, "zero CommitOp"},
		{"empty key", "acme", []CommitOp{ev(), Put("order-events", "", []byte("v"))}, InvalidOperation, "empty key"},
		{"key too long", "acme", []CommitOp{ev(), Delete("order-events", strings.Repeat("k", felix.KeyLenMax+1))}, InvalidOperation, "exceeds 1024"},
		{"value too large", "acme", []CommitOp{ev(), Put("order-events", "k", bigValue)}, InvalidOperation, "exceeds 1048576"},
		{"payload too large", "acme", []CommitOp{Publish("order-events", bigValue)}, InvalidOperation, "payload of 1048577 bytes"},
		{"too many operations", "acme", tooMany, InvalidOperation, "1025 state operations"},
		{"unknown stream", "acme", []CommitOp{Publish("nope", nil)}, UnknownStream, "no stream orders/nope"},
		{"empty stream name", "acme", []CommitOp{Publish("", nil)}, InvalidScope, "empty stream"},
		{"empty tenant", "", []CommitOp{ev()}, InvalidScope, "empty tenant"},
		{"record over the frame limit", "acme", fullFrame(), InvalidOperation, "over the frame limit"},
	}
	for _, tc := range cases {
		for _, conditional := range []bool{false, true} {
			t.Run(tc.name, func(t *testing.T) {
				c, tr := newTestClient(t, 0)
				var err error
				if conditional {
					var p *Pending[ConditionalWrite]
					p, err = c.CommitIf(0, tc.tenant, "orders", []byte("order-42"), tc.ops, 7)
					require.Nil(t, p)
				} else {
					var p *Pending[Receipt]
					p, err = c.Commit(0, tc.tenant, "orders", []byte("order-42"), tc.ops)
					require.Nil(t, p)
				}
				var ce *CommitError
				require.ErrorAs(t, err, &ce)
				require.Equal(t, tc.code, ce.Code, "error: %v", err)
				require.ErrorIs(t, err, ErrNotSent)
				require.ErrorContains(t, err, tc.mentions)
				require.Empty(t, tr.sends, "a refused commit must send nothing")
				require.Zero(t, c.InFlight())
			})
		}
	}
}

// fullFrame is a valid record (within every statemachine limit) whose
// request exceeds the wire's frame-body limit.
func fullFrame() []CommitOp {
	ops := []CommitOp{Publish("order-events", nil)}
	v := make([]byte, felix.ValueLenMax)
	for i := 0; i < 9; i++ {
		ops = append(ops, Put("order-events", string(rune('a'+i)), v))
	}
	return ops
}

// TestEventCallValidation covers publish, publish_if and enqueue refusals.
func TestEventCallValidation(t *testing.T) {
	big := make([]byte, felix.PayloadLenMax+1)
	cases := []struct {
		name     string
		call     func(c *Client) error
		code     CommitErrorCode
		mentions string
	}{
		{"publish unknown stream", func(c *Client) error { _, err := c.Publish(0, "acme", "orders", "nope", nil, nil); return err }, UnknownStream, "no stream"},
		{"publish empty namespace", func(c *Client) error { _, err := c.Publish(0, "acme", "", "order-events", nil, nil); return err }, InvalidScope, "empty namespace"},
		{"publish oversize payload", func(c *Client) error { _, err := c.Publish(0, "acme", "orders", "order-events", nil, big); return err }, InvalidOperation, "payload of"},
		{"publish_if oversize payload", func(c *Client) error {
			_, err := c.PublishIf(0, "acme", "orders", "order-events", nil, big, 3)
			return err
		}, InvalidOperation, "payload of"},
		{"enqueue long tenant", func(c *Client) error {
			_, err := c.Enqueue(0, strings.Repeat("t", 256), "orders", "order-events", nil, nil)
			return err
		}, InvalidScope, "tenant of 256 bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, tr := newTestClient(t, 0)
			err := tc.call(c)
			var ce *CommitError
			require.ErrorAs(t, err, &ce)
			require.Equal(t, tc.code, ce.Code, "error: %v", err)
			require.ErrorContains(t, err, tc.mentions)
			require.Empty(t, tr.sends)
		})
	}
}

// TestReadCallValidation covers state_get, subscribe and group refusals.
func TestReadCallValidation(t *testing.T) {
	cases := []struct {
		name     string
		call     func(c *Client) error
		mentions string
	}{
		{"state_get empty key", func(c *Client) error {
			_, err := c.StateGet(0, "acme", "orders", "order-events", []byte("e"), "")
			return err
		}, "empty key"},
		{"state_get unknown stream", func(c *Client) error { _, err := c.StateGet(0, "acme", "orders", "nope", []byte("e"), "k"); return err }, "no stream"},
		{"subscribe shard out of range", func(c *Client) error { _, err := c.Subscribe(0, scopeOf(4), 0, 10); return err }, "shard 4 is out of range"},
		{"subscribe zero entries", func(c *Client) error { _, err := c.Subscribe(0, scopeOf(0), 0, 0); return err }, "max entries 0"},
		{"subscribe empty tenant", func(c *Client) error {
			s := scopeOf(0)
			s.Tenant = ""
			_, err := c.Subscribe(0, s, 0, 1)
			return err
		}, "empty tenant"},
		{"fetch empty group", func(c *Client) error { _, err := c.GroupFetch(0, scopeOf(1), "", 1, 5); return err }, "empty group"},
		{"fetch zero lease", func(c *Client) error { _, err := c.GroupFetch(0, scopeOf(1), "g", 1, 0); return err }, "lease of 0 ns"},
		{"fetch too many", func(c *Client) error { _, err := c.GroupFetch(0, scopeOf(1), "g", 5000, 5); return err }, "max entries 5000"},
		{"ack long group", func(c *Client) error { _, err := c.GroupAck(0, scopeOf(1), strings.Repeat("g", 256), 3); return err }, "group name of 256 bytes"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, tr := newTestClient(t, 0)
			err := tc.call(c)
			var ae *ArgumentError
			require.ErrorAs(t, err, &ae)
			require.ErrorIs(t, err, ErrNotSent)
			require.ErrorContains(t, err, tc.mentions)
			require.Empty(t, tr.sends)
		})
	}
}

func TestNewRefusesBadConfig(t *testing.T) {
	ok := Config{Brokers: []NodeID{1}, CallTimeoutNs: 1}
	cases := []struct {
		name     string
		edit     func(*Config)
		tr       Transport
		mentions string
	}{
		{"nil transport", func(*Config) {}, nil, "nil Transport"},
		{"no brokers", func(c *Config) { c.Brokers = nil }, &recorder{}, "no brokers"},
		{"broker zero", func(c *Config) { c.Brokers = []NodeID{1, 0} }, &recorder{}, "broker id 0"},
		{"no timeout", func(c *Config) { c.CallTimeoutNs = 0 }, &recorder{}, "CallTimeoutNs 0"},
		{"negative cap", func(c *Config) { c.PendingMax = -1 }, &recorder{}, "PendingMax -1"},
		{"zero shards", func(c *Config) { c.Streams = []StreamShards{{Namespace: "n", Stream: "s"}} }, &recorder{}, "0 shards"},
		{"stream twice", func(c *Config) {
			c.Streams = []StreamShards{{Namespace: "n", Stream: "s", Shards: 1}, {Namespace: "n", Stream: "s", Shards: 2}}
		}, &recorder{}, "listed twice"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := ok
			tc.edit(&cfg)
			c, err := New(cfg, tc.tr)
			require.Nil(t, c)
			require.ErrorContains(t, err, tc.mentions)
		})
	}
}
