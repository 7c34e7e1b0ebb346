package artifact

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputsRefuseWhatWouldOverwrite: each hand-built set of outputs
// that would overwrite an input, another output or a saved run is
// refused naming the flags; the same outputs apart are accepted.
func TestOutputsRefuseWhatWouldOverwrite(t *testing.T) {
	dir := t.TempDir()
	saved := filepath.Join(dir, "saved")
	os.MkdirAll(saved, 0o755)
	os.WriteFile(filepath.Join(saved, PlanFile), []byte("plan"), 0o644)
	os.Symlink(filepath.Join(saved, PlanFile), filepath.Join(dir, "link.txt"))
	for _, c := range []struct {
		name string
		fill func(o *Outputs)
		why  string
	}{
		{"shrink D --out D", func(o *Outputs) { o.Dir("--out", saved, Files...); o.Input("the saved run", saved) }, "an input is never overwritten"},
		{"--plan D/plan.txt --out D", func(o *Outputs) { o.Dir("--out", saved, Files...); o.Input("--plan", filepath.Join(saved, PlanFile)) }, "an input is never overwritten"},
		{"--out d --trace-out d/trace.ndjson", func(o *Outputs) {
			o.Dir("--out", filepath.Join(dir, "d"), Files...)
			o.File("--trace-out", filepath.Join(dir, "d", "trace.ndjson"))
		}, "lies in the --out directory"},
		{"--history X --trace-out X", func(o *Outputs) {
			o.File("--history", filepath.Join(dir, "x"))
			o.File("--trace-out", filepath.Join(dir, ".", "x"))
		}, "they are one file"},
		{"an output through a symlink to the input", func(o *Outputs) {
			o.File("--out", filepath.Join(dir, "link.txt"))
			o.Input("--plan", filepath.Join(saved, PlanFile))
		}, "an input is never overwritten"},
		{"a non-empty --out", func(o *Outputs) { o.Dir("--out", saved, Files...) }, "not empty"},
		{"--out over a file", func(o *Outputs) { o.Dir("--out", filepath.Join(saved, PlanFile), Files...) }, "is a file"},
	} {
		var o Outputs
		c.fill(&o)
		err := o.Check(false)
		if err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: %v, want a refusal saying %q", c.name, err, c.why)
		}
	}
	var o Outputs
	o.Dir("--out", saved, Files...)
	if err := o.Check(true); err != nil {
		t.Errorf("--force over a saved run: %v", err)
	}
	var apart Outputs
	apart.Dir("--out", filepath.Join(dir, "new"), Files...)
	apart.File("--history", filepath.Join(dir, "h.jsonl"))
	apart.File("--trace-out", filepath.Join(dir, "model-trace.ndjson"))
	apart.Input("--plan", filepath.Join(saved, PlanFile))
	if err := apart.Check(false); err != nil {
		t.Errorf("outputs apart: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "h.jsonl")); err == nil {
		t.Errorf("the writability probe left --history behind")
	}
}
