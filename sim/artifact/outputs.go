package artifact

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Outputs are the files one command will read and write, checked
// together before anything runs: no two outputs are one file, no input is
// an output, no output file lies in an output directory (the directory's
// files are the command's), an output directory that exists and holds
// files is refused unless forced, and every output is proven writable.
type Outputs struct {
	files  []named
	dirs   []outDir
	inputs []named
}

// named is a path and the flag (or argument) that gave it.
type named struct{ flag, path string }

// outDir is an output directory and the files the command writes in it.
type outDir struct {
	named
	names []string
}

// File adds an output file given by flag ("" path: none).
func (o *Outputs) File(flag, path string) {
	if path != "" {
		o.files = append(o.files, named{flag, path})
	}
}

// Dir adds an output directory given by flag, into which the command
// writes files of the given names ("" dir: none).
func (o *Outputs) Dir(flag, dir string, names ...string) {
	if dir != "" {
		o.dirs = append(o.dirs, outDir{named{flag, dir}, names})
	}
}

// Input adds an input file or directory given by flag ("" path: none).
func (o *Outputs) Input(flag, path string) {
	if path != "" {
		o.inputs = append(o.inputs, named{flag, path})
	}
}

// Check refuses what cannot be written as asked (see Outputs), naming the
// flags; with force, an output directory that holds files is accepted
// (the files of the names the command writes are replaced, the others
// kept). On success every output directory exists and is writable.
func (o *Outputs) Check(force bool) error {
	all := slices.Clone(o.files)
	for _, d := range o.dirs {
		for _, n := range d.names {
			all = append(all, named{d.flag, filepath.Join(d.path, n)})
		}
	}
	for _, f := range o.files {
		for _, d := range o.dirs {
			if samePath(f.path, d.path) || within(f.path, d.path) {
				return fmt.Errorf("%s %s refused: it lies in the %s directory %s, whose files are the command's: write it elsewhere", f.flag, f.path, d.flag, d.path)
			}
		}
	}
	if err := distinct(all); err != nil {
		return err
	}
	if err := o.inputsApart(all); err != nil {
		return err
	}
	for _, f := range o.files {
		if err := CheckWritable(f.path); err != nil {
			return fmt.Errorf("%s %w", f.flag, err)
		}
	}
	for _, d := range o.dirs {
		if err := prepareDir(d.path, force); err != nil {
			return fmt.Errorf("%s: %w", d.flag, err)
		}
	}
	return nil
}

// distinct refuses two outputs that are one file.
func distinct(all []named) error {
	for i := range all {
		for j := i + 1; j < len(all); j++ {
			if samePath(all[i].path, all[j].path) {
				return fmt.Errorf("%s %s and %s %s refused: they are one file, and each would overwrite the other", all[i].flag, all[i].path, all[j].flag, all[j].path)
			}
		}
	}
	return nil
}

// inputsApart refuses an input that is an output, or an input directory
// that is an output directory (whose files the command would replace).
func (o *Outputs) inputsApart(all []named) error {
	for _, in := range o.inputs {
		for _, out := range all {
			if samePath(in.path, out.path) {
				return fmt.Errorf("%s %s refused: it is also the output %s %s; an input is never overwritten", in.flag, in.path, out.flag, out.path)
			}
		}
		for _, d := range o.dirs {
			if samePath(in.path, d.path) || within(in.path, d.path) {
				return fmt.Errorf("%s %s refused: it is in the output directory %s %s; an input is never overwritten: write the output elsewhere", in.flag, in.path, d.flag, d.path)
			}
		}
	}
	return nil
}

// samePath reports whether a and b name one file: the same cleaned
// absolute path, or (when both exist) the same file on disk.
func samePath(a, b string) bool {
	if abs(a) == abs(b) {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// within reports whether path lies inside dir (at any depth).
func within(path, dir string) bool {
	rel, err := filepath.Rel(abs(dir), abs(path))
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

func abs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// prepareDir makes dir (and its parents) and proves it writable; a
// directory that exists and holds any entry is refused unless force.
func prepareDir(dir string, force bool) error {
	if !force {
		if empty, err := isEmptyDir(dir); err != nil {
			return err
		} else if !empty {
			return fmt.Errorf("directory %s refused: it exists and is not empty (a saved run would be overwritten); give --force to write into it, or another directory", dir)
		}
	}
	return Prepare(dir)
}

// isEmptyDir reports whether dir is missing or an empty directory; a file
// there is refused.
func isEmptyDir(dir string) (bool, error) {
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("directory %s refused: %w", dir, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.IsDir() {
		return false, fmt.Errorf("directory %s refused: it is a file", dir)
	}
	_, err = f.Readdirnames(1)
	if errors.Is(err, io.EOF) {
		return true, nil
	}
	return false, err
}
