package detcheck

import (
	"go/ast"
	"go/token"
	"slices"
	"strconv"
	"strings"
)

// checkLayers checks the imports of one package (rel, module-relative, in
// module modPath) against its entry in the layers table.
func checkLayers(fset *token.FileSet, files []*ast.File, modPath, rel string) []Finding {
	l, known := layers[rel]
	if !known {
		if len(files) == 0 {
			return nil
		}
		return []Finding{{Pos: fset.Position(files[0].Package), Rule: "layer",
			Text: "package " + rel + " is not in the layering table (sim/detcheck/layers.go): add it with what it may import"}}
	}
	var out []Finding
	for _, f := range files {
		ok := okMarkers(fset, f)
		for _, spec := range f.Imports {
			path, err := strconv.Unquote(spec.Path.Value)
			if err != nil {
				continue // the parser accepted it, so it is a valid literal
			}
			pos := fset.Position(spec.Pos())
			switch {
			case path == modPath || strings.HasPrefix(path, modPath+"/"):
				target := strings.TrimPrefix(strings.TrimPrefix(path, modPath), "/")
				if !slices.Contains(l.may, target) {
					out = append(out, Finding{Pos: pos, Rule: "layer",
						Text: rel + " must not import " + target + ": it may import only " + listOrNothing(l.may) + " (layers.go, " + rel + "/doc.go)"})
				}
			case isStd(path):
				why, banned := l.forbidStd[path]
				if !banned {
					continue
				}
				if reason, marked := markerFor(ok, pos.Line); marked {
					if strings.TrimSpace(reason) == "" {
						out = append(out, Finding{Pos: pos, Rule: "det:ok", Text: "a det:ok marker must give its reason"})
					}
					continue
				}
				out = append(out, Finding{Pos: pos, Rule: "import", Text: rel + " must not import " + path + ": " + why})
			default:
				if !slices.ContainsFunc(l.external, func(m string) bool { return path == m || strings.HasPrefix(path, m+"/") }) {
					out = append(out, Finding{Pos: pos, Rule: "layer",
						Text: rel + " must not import " + path + ": its allowed modules are " + listOrNothing(l.external) + " (layers.go)"})
				}
			}
		}
	}
	return out
}

// isStd reports whether an import path names a standard-library package:
// its first element has no dot.
func isStd(path string) bool {
	first, _, _ := strings.Cut(path, "/")
	return !strings.Contains(first, ".")
}

func listOrNothing(xs []string) string {
	if len(xs) == 0 {
		return "nothing"
	}
	return strings.Join(xs, ", ")
}

// okMarkers maps each line of f holding a `//det:ok` comment to the text
// after the marker (the reason, possibly empty).
func okMarkers(fset *token.FileSet, f *ast.File) map[int]string {
	out := map[int]string{}
	for _, g := range f.Comments {
		for _, cm := range g.List {
			if rest, ok := strings.CutPrefix(cm.Text, "//det:ok"); ok {
				out[fset.Position(cm.Pos()).Line] = rest
			}
		}
	}
	return out
}

// markerFor finds the det:ok marker covering line: on it or on the line above.
func markerFor(markers map[int]string, line int) (string, bool) {
	for _, l := range []int{line, line - 1} {
		if reason, ok := markers[l]; ok {
			return reason, true
		}
	}
	return "", false
}
