// Package analyzertest runs analyzers over Python fixture projects and checks their
// diagnostics against `# want "regexp"` comments, like x/tools' analysistest does for Go.
//
// A line that should be reported carries `# want "CL001 .*step loop"`: each quoted regexp
// must match one diagnostic on that line, rendered as "CODE message". Diagnostics without a
// matching expectation and expectations without a diagnostic both fail the test.
package analyzertest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/tools/go/analysis"

	"github.com/cachelint/cachelint/internal/driver"
)

// Result is a fixture run.
type Result struct {
	*driver.Result
	Dir string
}

// Run analyses every .py file under dir (one project rooted at dir) with the analyzers and
// checks the diagnostics of the reporting analyzers against the fixtures' expectations.
// flags are extra analyzer flags (analyzer -> flag -> value).
func Run(t *testing.T, dir string, reporting []*analysis.Analyzer, flags map[string]map[string]string) *Result {
	t.Helper()
	files, err := pythonFiles(dir)
	if err != nil {
		t.Fatalf("list fixtures: %v", err)
	}
	if len(files) == 0 {
		t.Fatalf("no .py fixtures under %s", dir)
	}
	all := map[string]map[string]string{"cachecalls": {"root": dir}, "pyparse": {"needles": ""}}
	for a, fl := range flags {
		if all[a] == nil {
			all[a] = map[string]string{}
		}
		for k, v := range fl {
			all[a][k] = v
		}
	}
	res, err := driver.Run(driver.Options{Files: files, Analyzers: reporting, Flags: all})
	if err != nil {
		t.Fatalf("driver: %v", err)
	}
	for _, e := range res.Errors {
		t.Errorf("internal error: %v", e)
	}
	want := map[string][]*expectation{}
	for _, f := range files {
		exps, err := expectations(f)
		if err != nil {
			t.Fatalf("%v", err)
		}
		for _, e := range exps {
			key := fmt.Sprintf("%s:%d", f, e.line)
			want[key] = append(want[key], e)
		}
	}
	isReporting := map[*analysis.Analyzer]bool{}
	for _, a := range reporting {
		isReporting[a] = true
	}
	for _, d := range res.Diagnostics {
		if !isReporting[d.Analyzer] {
			continue
		}
		pos := res.Fset.Position(d.Pos)
		key := fmt.Sprintf("%s:%d", pos.Filename, pos.Line)
		text := d.Category + " " + d.Message
		matched := false
		for _, e := range want[key] {
			if !e.met && e.re.MatchString(text) {
				e.met, matched = true, true
				break
			}
		}
		if !matched {
			t.Errorf("%s: unexpected diagnostic: %s", rel(dir, key), text)
		}
	}
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		for _, e := range want[k] {
			if !e.met {
				t.Errorf("%s: no diagnostic matching %q", rel(dir, k), e.re)
			}
		}
	}
	return &Result{Result: res, Dir: dir}
}

func rel(dir, key string) string {
	if r, err := filepath.Rel(dir, key); err == nil {
		return r
	}
	return key
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
