package timeline

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"github.com/felixsim/felixsim/sim/faultplan"
)

// secs renders simulated nanoseconds as seconds with millisecond digits:
// "12.345 s".
func secs(ns int64) string {
	sign := ""
	if ns < 0 {
		sign, ns = "-", -ns
	}
	return fmt.Sprintf("%s%d.%03d s", sign, ns/1e9, ns%1e9/1e6)
}

// faultLabel says fault f in words: its kind, the nodes it names by
// their rows' names, when it struck and how long its condition lasted
// (endNs, the same as atNs for a moment; when not exact, the latest it
// lasted), then its other fields, times in seconds: "kill broker 2 at
// 12.345 s for 0.814 s (torn writes)".
func faultLabel(f faultplan.FaultEvent, atNs, endNs int64, exact bool, nb numbering) string {
	var b strings.Builder
	b.WriteString(f.Kind.String())
	if who := faultTargets(f, nb); who != "" {
		b.WriteString(" " + who)
	}
	if f.Role != "" {
		fmt.Fprintf(&b, " (the %s)", f.Role)
	}
	b.WriteString(" at " + secs(atNs))
	switch {
	case f.Kind.Shape() == faultplan.ShapeSpan && f.DurNs > 0:
		b.WriteString(" for " + secs(f.DurNs))
	case endNs > atNs && exact:
		b.WriteString(" until " + secs(endNs))
	case endNs > atNs:
		b.WriteString(" until " + secs(endNs) + " at the latest")
	}
	if extra := faultExtras(f); len(extra) > 0 {
		b.WriteString(" (" + strings.Join(extra, ", ") + ")")
	}
	return b.String()
}

// faultTargets names the nodes f acts on by its fields (the fault table
// says what each kind does with them; no kind is named here): "broker 1",
// "broker 1, peer broker 2", "{broker 3} from the rest", "{broker 3}
// from the rest, bridged by broker 1".
func faultTargets(f faultplan.FaultEvent, nb numbering) string {
	fields := planFields(f)
	node, hasNode := fields["node"]
	peer, hasPeer := fields["peer"]
	_, hasMask := fields["mask"]
	name := func(v string) string {
		n, err := strconv.Atoi(v)
		if err != nil {
			return "node " + v
		}
		return nb.nodeName(n)
	}
	switch {
	case hasMask:
		var names []string
		for m := f.Mask; m != 0; m &= m - 1 {
			names = append(names, nb.nodeName(bits.TrailingZeros64(m)))
		}
		s := "{" + strings.Join(names, ", ") + "} from the rest"
		if hasNode {
			s += ", bridged by " + name(node)
		}
		return s
	case hasPeer:
		return name(node) + ", peer " + name(peer)
	case hasNode:
		return name(node)
	}
	return ""
}

// faultExtras are f's fields beyond its nodes and its duration, in the
// plan's order: nanoseconds as seconds, parts per million as percent.
func faultExtras(f faultplan.FaultEvent) []string {
	var out []string
	for _, kv := range planPairs(f) {
		k, v := kv[0], kv[1]
		switch k {
		case "node", "peer", "mask", "dur_ns", "role":
			continue
		case "torn":
			if v == "true" {
				out = append(out, "torn writes")
			} else {
				out = append(out, "unsynced writes lost")
			}
			continue
		}
		n, err := strconv.ParseInt(v, 10, 64)
		switch {
		case err != nil:
			out = append(out, strings.ReplaceAll(k, "_", " ")+" "+v)
		case strings.HasSuffix(k, "_ns"):
			out = append(out, strings.ReplaceAll(strings.TrimSuffix(k, "_ns"), "_", " ")+" "+secs(n))
		case strings.HasSuffix(k, "_ppm"):
			out = append(out, strings.ReplaceAll(strings.TrimSuffix(k, "_ppm"), "_", " ")+" "+ppm(n))
		default:
			out = append(out, strings.ReplaceAll(k, "_", " ")+" "+v)
		}
	}
	return out
}

// ppm renders parts per million as a percentage: "14.763%".
func ppm(v int64) string {
	return strconv.FormatFloat(float64(v)/1e4, 'f', -1, 64) + "%"
}

// planPairs are f's key=value fields as the plan prints them, after its
// time and kind.
func planPairs(f faultplan.FaultEvent) [][2]string {
	_, rest, _ := strings.Cut(f.String(), " kind="+f.Kind.String())
	var out [][2]string
	for _, tok := range strings.Fields(rest) {
		if k, v, ok := strings.Cut(tok, "="); ok {
			out = append(out, [2]string{k, v})
		}
	}
	return out
}

// planFields are planPairs by key.
func planFields(f faultplan.FaultEvent) map[string]string {
	out := map[string]string{}
	for _, kv := range planPairs(f) {
		out[kv[0]] = kv[1]
	}
	return out
}
