package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/felixsim/felixsim/sim/sweep"
)

// recipePath is the Kubernetes Indexed Job recipe docs/sweep.md points to.
const recipePath = "../../docs/k8s/sweep-indexed-job.yaml"

// indexedJob is the part of a batch/v1 Job the recipe uses; the decoder
// refuses any other field, so a misspelt one (completionmode) fails here as
// the API server's strict decoding would refuse it.
type indexedJob struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    *int   `yaml:"completions"`
		Parallelism    *int   `yaml:"parallelism"`
		BackoffLimit   *int   `yaml:"backoffLimit"`
		Template       struct {
			Spec struct {
				RestartPolicy string         `yaml:"restartPolicy"`
				Containers    []jobContainer `yaml:"containers"`
				Volumes       []struct {
					Name                  string `yaml:"name"`
					PersistentVolumeClaim struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				} `yaml:"volumes"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// jobContainer is the recipe's container.
type jobContainer struct {
	Name      string   `yaml:"name"`
	Image     string   `yaml:"image"`
	Command   []string `yaml:"command"`
	Args      []string `yaml:"args"`
	Resources struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	} `yaml:"resources"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

// checkRecipe is the schema check of the recipe: a batch/v1 Job in Indexed
// completion mode, parallelism no more than completions, pods never
// restarted in place, one container whose shell script runs a `felixsim
// sweep` that felixsim's own flag parser (parseSweepArgs) accepts for every
// completion index, each pod a different shard of completions shards (so
// the pods cover the range once), --jobs the CPUs the pod requests (as the
// recipe's comment promises), --json written to a file on a mounted
// volume, and a found failing seed (exit 1, or 4 for liveness only) not
// failing the pod.
func checkRecipe(yamlText []byte) error {
	var job indexedJob
	dec := yaml.NewDecoder(bytes.NewReader(yamlText))
	dec.KnownFields(true)
	if err := dec.Decode(&job); err != nil {
		return fmt.Errorf("not a Job the check knows: %w", err)
	}
	if err := checkJobSpec(&job); err != nil {
		return err
	}
	c := job.Spec.Template.Spec.Containers[0]
	if len(c.Command) != 2 || c.Command[0] != "/bin/sh" || c.Command[1] != "-c" || len(c.Args) != 1 {
		return fmt.Errorf("container command %q args %q: want /bin/sh -c and one script", c.Command, c.Args)
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		mounts[m.Name] = m.MountPath
	}
	for _, v := range job.Spec.Template.Spec.Volumes {
		if _, ok := mounts[v.Name]; ok && v.PersistentVolumeClaim.ClaimName == "" {
			return fmt.Errorf("volume %s: no persistentVolumeClaim.claimName", v.Name)
		}
		delete(mounts, v.Name)
	}
	if len(mounts) > 0 {
		return fmt.Errorf("volume mounts %v have no volume", mounts)
	}
	return checkScript(c, *job.Spec.Completions)
}

// checkJobSpec checks the Job's kind and its completion fields.
func checkJobSpec(job *indexedJob) error {
	s := &job.Spec
	switch {
	case job.APIVersion != "batch/v1" || job.Kind != "Job":
		return fmt.Errorf("apiVersion %q kind %q: want batch/v1 Job", job.APIVersion, job.Kind)
	case job.Metadata.Name == "":
		return fmt.Errorf("metadata.name is empty")
	case s.CompletionMode != "Indexed":
		return fmt.Errorf("completionMode %q: want Indexed (JOB_COMPLETION_INDEX names the shard)", s.CompletionMode)
	case s.Completions == nil || *s.Completions < 1:
		return fmt.Errorf("completions missing or under 1: an Indexed Job needs them")
	case s.Parallelism == nil || *s.Parallelism < 1 || *s.Parallelism > *s.Completions:
		return fmt.Errorf("parallelism %s: want 1..completions (%d)", intOrMissing(s.Parallelism), *s.Completions)
	case s.Template.Spec.RestartPolicy != "Never":
		return fmt.Errorf("restartPolicy %q: want Never (a restarted pod would sweep its shard again into the same report)", s.Template.Spec.RestartPolicy)
	case len(s.Template.Spec.Containers) != 1:
		return fmt.Errorf("%d containers: want one", len(s.Template.Spec.Containers))
	}
	return nil
}

// intOrMissing prints an optional count.
func intOrMissing(p *int) string {
	if p == nil {
		return "missing"
	}
	return strconv.Itoa(*p)
}

// checkScript runs the script's sweep command line, for every completion
// index, through felixsim's sweep flag parser, and checks the shards, the
// jobs, the report's file and the exit code's handling.
func checkScript(c jobContainer, completions int) error {
	lines := scriptLines(c.Args[0])
	if len(lines) == 0 || lines[len(lines)-1] != `[ "$code" -le 1 ] || [ "$code" -eq 4 ]` {
		return fmt.Errorf("the script does not end with [ \"$code\" -le 1 ] || [ \"$code\" -eq 4 ]: a sweep that found failing seeds (exit 1, or 4 for liveness only) must not fail the pod")
	}
	cpus, err := strconv.Atoi(c.Resources.Requests["cpu"])
	if err != nil || cpus < 1 {
		return fmt.Errorf("resources.requests.cpu %q: want a whole number of CPUs for --jobs", c.Resources.Requests["cpu"])
	}
	shards := map[uint64]bool{}
	for k := range completions {
		words, stdout, err := sweepWords(lines, k)
		if err != nil {
			return err
		}
		var errOut bytes.Buffer
		sa, code, done := parseSweepArgs(words, io.Discard, &errOut)
		if done {
			return fmt.Errorf("index %d: felixsim sweep %q refused (exit %d): %s", k, words, code, strings.TrimSpace(errOut.String()))
		}
		if err := checkSweepArgs(sa, k, completions, cpus, stdout, c); err != nil {
			return err
		}
		shards[sa.opts.Shard.Index] = true
	}
	if len(shards) != completions {
		return fmt.Errorf("the %d pods run %d distinct shards", completions, len(shards))
	}
	return nil
}

// checkSweepArgs checks pod k's parsed sweep.
func checkSweepArgs(sa sweepArgs, k, completions, cpus int, stdout string, c jobContainer) error {
	o := sa.opts
	switch {
	case o.Shard != (sweep.Shard{Index: uint64(k + 1), Count: uint64(completions)}):
		return fmt.Errorf("index %d runs shard %s: want %d/%d (completions)", k, o.Shard, k+1, completions)
	case o.Jobs != cpus:
		return fmt.Errorf("index %d: --jobs %d but the pod requests %d CPUs", k, o.Jobs, cpus)
	case !sa.asJSON:
		return fmt.Errorf("index %d: no --json: felixsim merge reads JSON reports", k)
	case stdout == "":
		return fmt.Errorf("index %d: the report is not written to a file", k)
	}
	for _, m := range c.VolumeMounts {
		if strings.HasPrefix(stdout, strings.TrimSuffix(m.MountPath, "/")+"/") &&
			(sa.outDir == "" || strings.HasPrefix(sa.outDir, strings.TrimSuffix(m.MountPath, "/")+"/")) {
			return nil
		}
	}
	return fmt.Errorf("index %d: report %q (out %q) is not on a mounted volume", k, stdout, sa.outDir)
}

// scriptLines is the script's lines, trimmed, continuations joined,
// blank lines dropped.
func scriptLines(script string) []string {
	var out []string
	for _, l := range strings.Split(strings.ReplaceAll(script, "\\\n", " "), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

var (
	assignRe = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=(.*)$`)
	arithRe  = regexp.MustCompile(`^\$\(\(\s*JOB_COMPLETION_INDEX\s*\+\s*([0-9]+)\s*\)\)$`)
	varRe    = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?`)
)

// sweepWords evaluates the script for completion index k as far as the
// check needs: its assignments (literals and $((JOB_COMPLETION_INDEX + c)))
// (other values expanded as words) and its one `felixsim sweep` line, split into words with quotes removed
// and variables expanded; the word after ">" is the file stdout goes to.
func sweepWords(lines []string, k int) (words []string, stdout string, err error) {
	vars := map[string]string{"JOB_COMPLETION_INDEX": strconv.Itoa(k)}
	found := 0
	for _, l := range lines {
		if m := assignRe.FindStringSubmatch(l); m != nil {
			val := m[2]
			if a := arithRe.FindStringSubmatch(val); a != nil {
				c, _ := strconv.Atoi(a[1])
				val = strconv.Itoa(k + c)
			} else if f, err := shellFields(val, vars); err != nil || len(f) != 1 {
				return nil, "", fmt.Errorf("assignment %q: want one word (%v)", l, err)
			} else {
				val = f[0]
			}
			vars[m[1]] = val
			continue
		}
		if !strings.HasPrefix(l, "felixsim sweep ") {
			continue
		}
		found++
		fields, err := shellFields(l, vars)
		if err != nil {
			return nil, "", err
		}
		for i := 2; i < len(fields); i++ {
			if fields[i] == ">" && i+1 < len(fields) {
				stdout = fields[i+1]
				i++
				continue
			}
			words = append(words, fields[i])
		}
	}
	if found != 1 {
		return nil, "", fmt.Errorf("the script has %d felixsim sweep lines: want one", found)
	}
	return words, stdout, nil
}

// shellFields splits a line into words as sh would for the plain shapes
// the recipe uses: whitespace between words, double quotes around one,
// $VAR expanded (an unset variable is refused, not expanded to "").
func shellFields(line string, vars map[string]string) ([]string, error) {
	var out []string
	var cur strings.Builder
	inWord, quoted := false, false
	for _, r := range line {
		switch {
		case r == '"':
			quoted, inWord = !quoted, true
		case (r == ' ' || r == '\t') && !quoted:
			if inWord {
				out = append(out, cur.String())
				cur.Reset()
				inWord = false
			}
		default:
			cur.WriteRune(r)
			inWord = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("unbalanced quote in %q", line)
	}
	if inWord {
		out = append(out, cur.String())
	}
	for i, w := range out {
		var unset string
		out[i] = varRe.ReplaceAllStringFunc(w, func(v string) string {
			name := varRe.FindStringSubmatch(v)[1]
			val, ok := vars[name]
			if !ok {
				unset = name
			}
			return val
		})
		if unset != "" {
			return nil, fmt.Errorf("variable %s in %q is never set", unset, w)
		}
	}
	return out, nil
}

// TestK8sRecipeIsAValidIndexedSweep: the recipe docs/sweep.md points to
// passes the schema check.
func TestK8sRecipeIsAValidIndexedSweep(t *testing.T) {
	text, err := os.ReadFile(recipePath)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkRecipe(text); err != nil {
		t.Fatalf("%s: %v", filepath.Base(recipePath), err)
	}
}

// TestK8sRecipeCheckRefusesBrokenRecipes: each hand-broken copy of the
// recipe is refused, for its own reason.
func TestK8sRecipeCheckRefusesBrokenRecipes(t *testing.T) {
	text, err := os.ReadFile(recipePath)
	if err != nil {
		t.Fatal(err)
	}
	good := string(text)
	for _, c := range []struct{ name, old, new, why string }{
		{"not a Job", "kind: Job", "kind: CronJob", "want batch/v1 Job"},
		{"old api", "apiVersion: batch/v1", "apiVersion: batch/v1beta1", "want batch/v1 Job"},
		{"not indexed", "completionMode: Indexed", "completionMode: NonIndexed", "want Indexed"},
		{"misspelt field", "completionMode: Indexed", "completionmode: Indexed", "not a Job the check knows"},
		{"shard count differs", "completions: 8\n  parallelism: 8", "completions: 6\n  parallelism: 6", "want 1/6"},
		{"too parallel", "parallelism: 8", "parallelism: 9", "want 1..completions"},
		{"restarted pods", "restartPolicy: Never", "restartPolicy: OnFailure", "want Never"},
		{"a flag sweep does not have", `--shard "$i/$n"`, `--shards "$i/$n"`, "flag provided but not defined: -shards"},
		{"zero-based shard", "i=$((JOB_COMPLETION_INDEX + 1))", "i=$JOB_COMPLETION_INDEX", "index must be"},
		{"reversed seeds", "--seeds 1..10000", "--seeds 10000..1", "ends before it starts"},
		{"jobs over the request", "--jobs 2", "--jobs 4", "--jobs 4 but the pod requests 2 CPUs"},
		{"no json", " --json ", " ", "no --json"},
		{"report off the volume", `> "/reports/shard-$i.json"`, `> "/tmp/shard-$i.json"`, "not on a mounted volume"},
		{"an unset variable", `--shard "$i/$n"`, `--shard "$i/$m"`, "variable m"},
		{"a failing seed fails the pod", `[ "$code" -le 1 ]`, `exit "$code"`, "must not fail the pod"},
		{"no claim", "claimName: felixsim-sweep-reports", `claimName: ""`, "no persistentVolumeClaim.claimName"},
	} {
		if !strings.Contains(good, c.old) {
			t.Fatalf("%s: %q is not in the recipe", c.name, c.old)
		}
		err := checkRecipe([]byte(strings.Replace(good, c.old, c.new, 1)))
		if err == nil || !strings.Contains(err.Error(), c.why) {
			t.Errorf("%s: check says %v, want an error saying %q", c.name, err, c.why)
		}
	}
}
