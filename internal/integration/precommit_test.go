// Package integration runs cachelint inside the tools that embed it.
package integration

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestPreCommitHook installs this checkout's golang hook with the real pre-commit, the way
// a user's repository would, and runs it on staged files. It builds cachelint through
// pre-commit's `go install ./...`, so it takes a while on a cold build cache.
func TestPreCommitHook(t *testing.T) {
	preCommit := needPreCommit(t)
	env := hookEnv(t)
	run := preCommitProject(t, preCommit, "cachelint", env)
	testHook(t, run)

	// `go install ./...` installs every main package of the module: the bench tool must
	// stay out of the hook's environment (its build tag keeps it out).
	home := envValue(env, "PRE_COMMIT_HOME")
	bins, err := filepath.Glob(filepath.Join(home, "*", "golangenv-*", "bin", "*"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, b := range bins {
		names = append(names, filepath.Base(b))
	}
	if len(names) != 1 || names[0] != "cachelint" {
		t.Errorf("the golang hook installed %v under %s, want cachelint alone", names, home)
	}
}

// TestPreCommitSystemHook runs the cachelint-system hook (language: system) the way a user
// who pip-installed cachelint runs it: the wheel installed into a virtualenv whose bin is
// on PATH, and no Go there.
func TestPreCommitSystemHook(t *testing.T) {
	preCommit := needPreCommit(t)
	python := needVenv(t)
	venv, err := installWheel(python, buildWheel(t), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	env := hookEnv(t)
	noGo := withoutGo(envValue(env, "PATH"))
	run := preCommitProject(t, preCommit, "cachelint-system", setEnv(env, "PATH", filepath.Join(venv, "bin")+string(os.PathListSeparator)+noGo))
	testHook(t, run)

	t.Run("without cachelint on PATH the hook says so", func(t *testing.T) {
		run := preCommitProject(t, preCommit, "cachelint-system", setEnv(env, "PATH", noGo))
		out, code := run("bad.py")
		if code == 0 || !strings.Contains(out, "Executable `cachelint` not found") {
			t.Fatalf("exit %d, want non-zero and pre-commit's executable-not-found message; output:\n%s", code, out)
		}
	})
}

func needPreCommit(t *testing.T) string {
	t.Helper()
	preCommit, err := exec.LookPath("pre-commit")
	if err != nil {
		t.Skip("pre-commit is not on PATH: install it to run this test " +
			"(Debian/Ubuntu: apt-get install -y pre-commit; or pip install pre-commit). CI installs it in .ci/run.")
	}
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not on PATH: install it (apt-get install -y git)")
	}
	return preCommit
}

// preCommitProject makes a user's project that uses this checkout's hook id and returns a
// function that runs `pre-commit run ID --files FILES...` in it.
func preCommitProject(t *testing.T, preCommit, id string, env []string) func(files ...string) (string, int) {
	t.Helper()
	checkout := moduleRoot(t)
	hookRepo, rev := snapshot(t, checkout, env)

	proj := filepath.Join(t.TempDir(), "user project")
	copyDir(t, filepath.Join("testdata", "precommit"), proj)
	config := fmt.Sprintf("repos:\n  - repo: %q\n    rev: %s\n    hooks:\n      - id: %s\n", hookRepo, rev, id)
	writeFile(t, filepath.Join(proj, ".pre-commit-config.yaml"), config)
	git(t, proj, env, "init", "-q")
	git(t, proj, env, "add", "-A")

	return func(files ...string) (string, int) {
		t.Helper()
		args := append([]string{"run", id, "--color", "never", "--files"}, files...)
		cmd := exec.Command(preCommit, args...)
		cmd.Dir = proj
		cmd.Env = env
		return runExit(t, cmd)
	}
}

// testHook runs a hook on the fixture project's files and checks what pre-commit says.
func testHook(t *testing.T, run func(files ...string) (string, int)) {
	t.Run("per-step empty_cache fails the commit", func(t *testing.T) {
		out, code := run("bad.py")
		if code == 0 || !strings.Contains(out, "CL001") || !strings.Contains(out, "bad.py") {
			t.Fatalf("exit %d, want non-zero with CL001 on bad.py; output:\n%s", code, out)
		}
		if !strings.Contains(out, "Failed") {
			t.Errorf("pre-commit did not report the hook as failed:\n%s", out)
		}
	})
	t.Run("clean file passes", func(t *testing.T) {
		out, code := run("clean.py")
		if code != 0 || !strings.Contains(out, "Passed") || strings.Contains(out, "CL0") {
			t.Fatalf("exit %d, want 0 and Passed; output:\n%s", code, out)
		}
	})
	t.Run("helper defined in a file that is not staged", func(t *testing.T) {
		// pre-commit names only uses_helper.py; cachelint must still index the project to
		// see that free_gpu() empties the cache.
		out, code := run("uses_helper.py")
		if code == 0 || !strings.Contains(out, "CL001") || !strings.Contains(out, "uses_helper.py") {
			t.Fatalf("exit %d, want CL001 at the helper's call in uses_helper.py; output:\n%s", code, out)
		}
		// gpu_utils.py may appear in notes under the finding, never as a finding.
		if regexp.MustCompile(`(?m)^gpu_utils\.py:\d+:\d+: CL`).MatchString(out) {
			t.Errorf("reported on gpu_utils.py, which pre-commit did not pass:\n%s", out)
		}
	})
	t.Run("extend-exclude holds for files pre-commit names", func(t *testing.T) {
		out, code := run(filepath.Join("legacy", "old_train.py"))
		if code != 0 || strings.Contains(out, "CL001") {
			t.Fatalf("exit %d, want 0: legacy/ is excluded in pyproject.toml; output:\n%s", code, out)
		}
	})
	t.Run("non-Python files are not passed to the hook", func(t *testing.T) {
		out, code := run("notes.txt")
		if code != 0 || !strings.Contains(out, "no files to check") {
			t.Fatalf("exit %d, want 0 and the hook skipped; output:\n%s", code, out)
		}
	})
}

// runExit runs cmd and returns its combined output and exit code; a command that cannot
// be started fails the test.
func runExit(t *testing.T, cmd *exec.Cmd) (string, int) {
	t.Helper()
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return string(out), 0
	case errors.As(err, &ee):
		return string(out), ee.ExitCode()
	}
	t.Fatalf("%s: %v\n%s", strings.Join(cmd.Args, " "), err, out)
	return "", 0
}

// withoutGo returns path less every directory that holds a go command.
func withoutGo(path string) string {
	var keep []string
	for _, dir := range filepath.SplitList(path) {
		if fi, err := os.Stat(filepath.Join(dir, "go")); err == nil && !fi.IsDir() {
			continue
		}
		keep = append(keep, dir)
	}
	return strings.Join(keep, string(os.PathListSeparator))
}

func envValue(env []string, name string) string {
	for _, kv := range env {
		if k, v, _ := strings.Cut(kv, "="); k == name {
			return v
		}
	}
	return ""
}

// setEnv returns env with name set to value (replaced where it was set).
func setEnv(env []string, name, value string) []string {
	var out []string
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); k != name {
			out = append(out, kv)
		}
	}
	return append(out, name+"="+value)
}

// hookEnv is the environment for git and pre-commit: the caller's (so GOFLAGS, GOPROXY
// and the like pass through), with pre-commit's cache in a temp dir, Go's caches pinned
// to the caller's (pre-commit sets GOPATH to its own env dir, which would move the
// module cache and download every module again) and the go found on PATH.
func hookEnv(t *testing.T) []string {
	t.Helper()
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Fatal("go is not on PATH; pre-commit's golang hooks need it")
	}
	goEnv := func(name string) string {
		out, err := exec.Command(goBin, "env", name).Output()
		if err != nil {
			t.Fatalf("go env %s: %v", name, err)
		}
		return strings.TrimSpace(string(out))
	}
	set := map[string]string{
		"PRE_COMMIT_HOME":     filepath.Join(t.TempDir(), "pre-commit-home"),
		"GOMODCACHE":          goEnv("GOMODCACHE"),
		"GOCACHE":             goEnv("GOCACHE"),
		"PATH":                filepath.Dir(goBin) + string(os.PathListSeparator) + os.Getenv("PATH"),
		"GIT_AUTHOR_NAME":     "cachelint test",
		"GIT_AUTHOR_EMAIL":    "test@cachelint.invalid",
		"GIT_COMMITTER_NAME":  "cachelint test",
		"GIT_COMMITTER_EMAIL": "test@cachelint.invalid",
	}
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if _, ok := set[name]; ok || strings.HasPrefix(name, "GIT_DIR") || name == "GIT_INDEX_FILE" || name == "GIT_WORK_TREE" {
			continue
		}
		env = append(env, kv)
	}
	for k, v := range set {
		env = append(env, k+"="+v)
	}
	return env
}

// moduleRoot is the checkout this test belongs to.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if data, err := os.ReadFile(filepath.Join(dir, "go.mod")); err == nil &&
			bytes.Contains(data, []byte("module github.com/cachelint/cachelint\n")) {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("cannot find the cachelint checkout (go.mod) above the test directory")
		}
		dir = parent
	}
}

// snapshot commits the checkout's working tree as it is now (tracked and untracked files
// that git does not ignore, uncommitted edits included) to a new repository, and returns
// it with the commit. pre-commit installs hooks only from a commit; `pre-commit try-repo`
// would make one too, but it leaves untracked files out, so a new file not yet added
// would be missing from the hook it tests.
func snapshot(t *testing.T, checkout string, env []string) (string, string) {
	t.Helper()
	listed := gitOut(t, checkout, env, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	dst := filepath.Join(t.TempDir(), "cachelint-hook")
	if err := os.MkdirAll(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, rel := range strings.Split(strings.TrimRight(listed, "\x00"), "\x00") {
		if rel == "" {
			continue
		}
		src := filepath.Join(checkout, filepath.FromSlash(rel))
		fi, err := os.Lstat(src)
		if errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the working tree, not yet in the index
		}
		if err != nil {
			t.Fatal(err)
		}
		copyEntry(t, src, filepath.Join(dst, filepath.FromSlash(rel)), fi)
	}
	git(t, dst, env, "init", "-q")
	git(t, dst, env, "add", "-A")
	git(t, dst, env, "-c", "commit.gpgsign=false", "commit", "-q", "--no-verify", "-m", "snapshot of the working tree")
	return dst, strings.TrimSpace(gitOut(t, dst, env, "rev-parse", "HEAD"))
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		copyEntry(t, p, filepath.Join(dst, rel), fi)
		return nil
	})
	if err != nil {
		t.Fatalf("copy %s: %v", src, err)
	}
}

func copyEntry(t *testing.T, src, dst string, fi fs.FileInfo) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, err := os.Readlink(src)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, dst); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !fi.Mode().IsRegular() {
		return
	}
	in, err := os.Open(src)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, fi.Mode().Perm())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		t.Fatalf("copy %s: %v", src, err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func git(t *testing.T, dir string, env []string, args ...string) {
	t.Helper()
	gitOut(t, dir, env, args...)
}

func gitOut(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %s in %s: %v\n%s", strings.Join(args, " "), dir, err, stderr.String())
	}
	return string(out)
}
