package detcheck

import (
	"bufio"
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
	f, err := os.Open(name)
	if err != nil {
		return "", fmt.Errorf("detcheck: need the module's go.mod: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(sc.Text()), "module"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
			if p := strings.Trim(strings.TrimSpace(rest), `"`); p != "" {
				return p, nil
			}
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("detcheck: read %s: %w", name, err)
	}
	return "", fmt.Errorf("detcheck: %s has no module line, so the module's own imports cannot be told apart", name)
}
