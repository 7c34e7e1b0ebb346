package tla

import (
	"strings"
	"testing"
)

// FuzzSelect: config and variant names from the command line are refused
// with an error or select a valid config whose names read back; never a panic.
func FuzzSelect(f *testing.F) {
	for _, s := range [][2]string{{"", ""}, {"MCPartialApplyFull", ""}, {"", "splitrecords"}, {"mcfelixatomiccommit", "Atomic"}, {"x", "y"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, name, variant string) {
		cfg, err := Select(name, variant)
		if err != nil {
			if !strings.Contains(err.Error(), "refused") {
				t.Fatalf("error %q does not say what was refused", err)
			}
			return
		}
		if err := cfg.Validate(); err != nil {
			t.Fatalf("Select(%q, %q) gave an invalid config: %v", name, variant, err)
		}
		if name != "" && !strings.EqualFold(cfg.Name, name) {
			t.Fatalf("Select(%q, %q) picked %s", name, variant, cfg.Name)
		}
		if v, err := ParseVariant(cfg.Variant.String()); err != nil || v != cfg.Variant {
			t.Fatalf("variant %s does not read back: %v", cfg.Variant, err)
		}
	})
}
