package node

import "testing"

// TestMetadataKeepsVersionsPastPeersMax: after replacements, more
// identities than PeersMax have reported a version (a replaced broker's
// entry stays); the metadata snapshot must still decode, else a broker
// installing it fails ("8 versions: more than 7", found by a run that
// replaced one broker nine times). Beyond BrokerVersionsMax a new
// identity's version is refused.
func TestMetadataKeepsVersionsPastPeersMax(t *testing.T) {
	m := &Metadata{}
	for id := uint64(1); id <= PeersMax+2; id++ {
		if err := m.setVersion(id, 1); err != nil {
			t.Fatal(err)
		}
	}
	back, err := decodeMetadata(encodeMetadata(m))
	if err != nil || len(back.Versions) != PeersMax+2 {
		t.Fatalf("metadata with %d versions: decoded %v, %v", PeersMax+2, back, err)
	}
	for id := uint64(PeersMax + 3); id <= BrokerVersionsMax; id++ {
		if err := m.setVersion(id, 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := m.setVersion(BrokerVersionsMax+1, 1); err == nil {
		t.Fatalf("version %d of %d kept past BrokerVersionsMax", BrokerVersionsMax+1, BrokerVersionsMax)
	}
	if err := m.setVersion(1, 2); err != nil {
		t.Fatalf("a known broker's new version refused at the cap: %v", err)
	}
}
