// Package analyzertest runs cachelint over Python fixture projects and checks the findings
// against `# want "regexp"` comments, like x/tools' analysistest does for Go.
//
// A line that should be reported carries `# want "CL001 .*step loop"`: each quoted regexp
// must match one finding on that line, rendered as "CODE message". Findings without a
// matching expectation and expectations without a finding both fail the test.
//
// Fixtures run on the production path: the engine walks the fixture directory, prefilters
// the files with the production needles, runs every analyzer, suppresses and maps
// notebooks, exactly as `cachelint check` does. A cachelint.toml in the fixture directory
// (or .cachelint.toml, or pyproject.toml) is its configuration.
package analyzertest

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/cachelint/cachelint/analyzers"
	"github.com/cachelint/cachelint/internal/config"
	"github.com/cachelint/cachelint/internal/driver"
	"github.com/cachelint/cachelint/internal/engine"
	"github.com/cachelint/cachelint/internal/fix"
	"github.com/cachelint/cachelint/internal/report"
	"github.com/cachelint/cachelint/internal/walk"
)

// T is what Run needs of a *testing.T; the package's own test passes a fake to show that a
// missing or an unexpected finding fails.
type T interface {
	Helper()
	Errorf(format string, args ...any)
	Fatalf(format string, args ...any)
}

// Run analyses the project in dir and checks the findings of the rules the reporting
// analyzers report against the fixtures' expectations. It returns the engine's result for
// further checks.
func Run(t T, dir string, reporting ...*driver.Analyzer) *engine.Result {
	t.Helper()
	res, files := run(t, dir, reporting)
	if res == nil {
		return nil
	}
	want := map[string][]*expectation{}
	for _, f := range files {
		exps, err := expectations(f)
		if err != nil {
			t.Fatalf("%v", err)
			return nil
		}
		for _, e := range exps {
			key := fmt.Sprintf("%s:%d", shown(f), e.line)
			want[key] = append(want[key], e)
		}
	}
	for _, f := range res.Report.Findings {
		key := fmt.Sprintf("%s:%d", f.File, f.Line)
		text := f.Code + " " + f.Message
		matched := false
		for _, e := range want[key] {
			if !e.met && e.re.MatchString(text) {
				e.met, matched = true, true
				break
			}
		}
		if !matched {
			t.Errorf("%s: unexpected diagnostic: %s", key, text)
		}
	}
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, e := range want[k] {
			if !e.met {
				t.Errorf("%s: no diagnostic matching %q", k, e.re)
			}
		}
	}
	return res
}

// RunWithFixes is Run, then applies every fix offered (safe and unsafe) to each file and
// compares the result with the file's `.golden` twin (train.py: train.py.golden). A file
// with fixes and no golden file, or a golden file whose source got no fix, fails.
func RunWithFixes(t T, dir string, reporting ...*driver.Analyzer) *engine.Result {
	t.Helper()
	res := Run(t, dir, reporting...)
	if res == nil {
		return nil
	}
	byFile := map[string][]*report.Fix{}
	for i := range res.Report.Findings {
		f := &res.Report.Findings[i]
		if f.Fix != nil {
			byFile[f.File] = append(byFile[f.File], f.Fix)
		}
	}
	goldens, err := filepath.Glob(filepath.Join(dir, "*.golden"))
	if err != nil {
		t.Fatalf("%v", err)
		return nil
	}
	for _, g := range goldens {
		abs, _ := filepath.Abs(strings.TrimSuffix(g, ".golden"))
		if byFile[shown(abs)] == nil {
			t.Errorf("%s: golden file, but no fix was offered in %s", g, shown(abs))
		}
	}
	for _, file := range slices.Sorted(maps.Keys(byFile)) {
		golden := file + ".golden"
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Errorf("%s: fixes offered, but no golden file: %v", file, err)
			continue
		}
		got, n := fix.Apply(res.Report.Source(file), byFile[file])
		if n != len(byFile[file]) {
			t.Errorf("%s: %d of %d fixes applied (overlapping edits?)", file, n, len(byFile[file]))
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: fixed text differs from %s:\n--- got\n%s\n--- want\n%s", file, filepath.Base(golden), got, want)
		}
	}
	return res
}

// Analyse runs the engine over dir as Run does, without checking expectations.
func Analyse(t T, dir string, reporting ...*driver.Analyzer) *engine.Result {
	t.Helper()
	res, _ := run(t, dir, reporting)
	return res
}

// run runs the engine over dir as a project with the rules of the reporting analyzers on.
func run(t T, dir string, reporting []*driver.Analyzer) (*engine.Result, []string) {
	t.Helper()
	abs, err := filepath.Abs(dir)
	if err != nil {
		t.Fatalf("%v", err)
		return nil, nil
	}
	files, err := pythonFiles(abs)
	if err != nil {
		t.Fatalf("list fixtures: %v", err)
		return nil, nil
	}
	if len(files) == 0 {
		t.Fatalf("no .py or .ipynb fixtures under %s", dir)
		return nil, nil
	}
	opts := engine.Options{Analysis: analyzers.Engine, Paths: []string{dir}, Root: dir, Rules: map[string]bool{}, Calls: true,
		Walk: walk.Options{RespectGitignore: false}}
	for code, a := range analyzers.Reporting {
		for _, r := range reporting {
			if r == a {
				opts.Rules[code] = true
			}
		}
	}
	if len(opts.Rules) == 0 {
		t.Fatalf("no rule is reported by %v", reporting)
		return nil, nil
	}
	for _, name := range []string{"cachelint.toml", ".cachelint.toml", "pyproject.toml"} {
		if cfgPath := filepath.Join(abs, name); fileExists(cfgPath) {
			if opts.Config, err = config.Load(cfgPath); err != nil {
				t.Fatalf("%v", err)
				return nil, nil
			}
			break
		}
	}
	res, err := engine.Run(context.Background(), opts)
	if err != nil {
		t.Fatalf("engine: %v", err)
		return nil, nil
	}
	for _, e := range res.Errors {
		t.Errorf("internal error: %v", e)
	}
	return res, files
}

// shown is how the engine shows an absolute path: relative to the working directory when
// below it, with forward slashes.
func shown(abs string) string {
	if cwd, err := os.Getwd(); err == nil {
		if r, err := filepath.Rel(cwd, abs); err == nil && !strings.HasPrefix(r, "..") {
			return filepath.ToSlash(r)
		}
	}
	return filepath.ToSlash(abs)
}

type expectation struct {
	line int
	re   *regexp.Regexp
	met  bool
}

var wantComment = regexp.MustCompile(`#\s*want\s+(".*)$`)

// expectations reads `# want "re" "re"` comments. A malformed one fails loudly: a fixture
// that expects nothing by accident would make its test pass vacuously.
func expectations(path string) ([]*expectation, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var out []*expectation
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for n := 1; sc.Scan(); n++ {
		m := wantComment.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		rest := strings.TrimSpace(m[1])
		for rest != "" {
			q, err := strconv.QuotedPrefix(rest)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: malformed want comment %q: %w", path, n, rest, err)
			}
			s, _ := strconv.Unquote(q)
			re, err := regexp.Compile(s)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: bad regexp %q: %w", path, n, s, err)
			}
			out = append(out, &expectation{line: n, re: re})
			rest = strings.TrimSpace(rest[len(q):])
		}
	}
	return out, sc.Err()
}

func pythonFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && (strings.HasSuffix(p, ".py") || strings.HasSuffix(p, ".ipynb")) {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
