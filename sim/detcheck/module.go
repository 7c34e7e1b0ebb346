package detcheck

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// CheckModule runs both checks over the Go module rooted at root: the
// layering check (layers.go) on every package, and the determinism rules on
// every package the table marks as simulated. Test files, testdata and
// hidden directories are skipped. Findings come sorted by file and line.
func CheckModule(root string) ([]Finding, error) {
	modPath, err := modulePath(root)
	if err != nil {
		return nil, err
	}
	var all []Finding
	err = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path != root && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		fset, files, err := parseDir(path)
		if err != nil || len(files) == 0 {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return fmt.Errorf("detcheck: %s is not below %s: %w", path, root, err)
		}
		rel = filepath.ToSlash(rel)
		all = append(all, checkLayers(fset, files, modPath, rel)...)
		if layers[rel].simulated {
			all = append(all, CheckFiles(fset, files)...)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sortFindings(all)
	return all, nil
}

// modulePath reads the module path from root/go.mod.
func modulePath(root string) (string, error) {
	name := filepath.Join(root, "go.mod")
	data, err := os.ReadFile(name)
	if err != nil {
		return "", fmt.Errorf("detcheck: need the module's go.mod: %w", err)
	}
	p, err := parseModulePath(data)
	if err != nil {
		return "", fmt.Errorf("detcheck: %s: %w", name, err)
	}
	return p, nil
}

// parseModulePath returns the path on a go.mod's module line.
func parseModulePath(gomod []byte) (string, error) {
	for _, line := range strings.Split(string(gomod), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 || fields[0] != "module" {
			continue
		}
		p := strings.Trim(fields[1], `"`)
		if p == "" || strings.ContainsAny(p, "\"`") {
			return "", fmt.Errorf("the module line %q names no usable module path", strings.TrimSpace(line))
		}
		return p, nil
	}
	return "", fmt.Errorf("no module line, so the module's own imports cannot be told apart")
}
