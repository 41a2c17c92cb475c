package integration

import (
	"crypto/sha256"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestActionInstall runs the Action's install step (scripts/action-install.sh) against a
// release folder laid out as scripts/dist.sh writes it, through a file:// URL, with no Go
// on PATH: the release binary of the action's ref, checked against SHA256SUMS, on the PATH
// the runner reads from GITHUB_PATH.
func TestActionInstall(t *testing.T) {
	runnerArch, dist := actionDist(t)
	script := filepath.Join(moduleRoot(t), "scripts", "action-install.sh")
	install := func(t *testing.T, env map[string]string) (string, int, string) {
		t.Helper()
		temp := t.TempDir()
		vars := map[string]string{
			"PATH":                  withoutGo(os.Getenv("PATH")),
			"HOME":                  temp,
			"RUNNER_OS":             "Linux",
			"RUNNER_ARCH":           runnerArch,
			"RUNNER_TEMP":           temp,
			"GITHUB_PATH":           filepath.Join(temp, "github_path"),
			"CACHELINT_RELEASE_URL": "file://" + dist,
		}
		for k, v := range env {
			vars[k] = v
		}
		out, code := runScript(t, script, vars, temp)
		return out, code, temp
	}

	t.Run("the action's own ref", func(t *testing.T) {
		out, code, temp := install(t, map[string]string{"CACHELINT_ACTION_REF": "v0.1.0"})
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
		bin := filepath.Join(temp, "cachelint", "bin")
		paths, err := os.ReadFile(filepath.Join(temp, "github_path"))
		if err != nil || strings.TrimSpace(string(paths)) != bin {
			t.Fatalf("GITHUB_PATH holds %q (%v), want %s", paths, err, bin)
		}
		ver, err := exec.Command(filepath.Join(bin, "cachelint"), "version").Output()
		if err != nil || !strings.HasPrefix(string(ver), "cachelint 0.1.0") {
			t.Errorf("installed cachelint version: %q, %v", ver, err)
		}
	})
	t.Run("the ref from the action's checkout path", func(t *testing.T) {
		// github.action_ref can be empty in a composite action; the path names the ref.
		out, code, _ := install(t, map[string]string{"GITHUB_ACTION_PATH": "/home/runner/work/_actions/cachelint/cachelint/v0.1.0"})
		if code != 0 {
			t.Fatalf("exit %d:\n%s", code, out)
		}
	})

	failures := []struct {
		name string
		env  map[string]string
		want string
	}{
		{"the version input wins, and a release must report its tag",
			map[string]string{"CACHELINT_ACTION_REF": "v0.1.0", "CACHELINT_VERSION": "v0.2.0"},
			"the v0.2.0 release binary reports 'cachelint 0.1.0"},
		{"a branch without go-install",
			map[string]string{"CACHELINT_VERSION": "main"},
			"main is not a release tag (vMAJOR.MINOR.PATCH, or latest)"},
		{"go-install without Go",
			map[string]string{"CACHELINT_VERSION": "main", "CACHELINT_GO_INSTALL": "true"},
			"go-install: true, but there is no go on PATH"},
		{"no ref at all",
			map[string]string{},
			"no version to install"},
		{"a macOS runner",
			map[string]string{"CACHELINT_VERSION": "v0.1.0", "RUNNER_OS": "macOS"},
			"release binaries are for Linux runners (this one is macOS)"},
		{"an unknown architecture",
			map[string]string{"CACHELINT_VERSION": "v0.1.0", "RUNNER_ARCH": "ARM"},
			"no release binary for runner architecture ARM"},
		{"a missing release",
			map[string]string{"CACHELINT_VERSION": "v0.1.0", "CACHELINT_RELEASE_URL": "file://" + filepath.Join(dist, "nowhere")},
			"cannot download file://"},
	}
	for _, tt := range failures {
		t.Run(tt.name, func(t *testing.T) {
			out, code, temp := install(t, tt.env)
			if code == 0 || !strings.Contains(out, tt.want) || !strings.Contains(out, "::error title=cachelint install::") {
				t.Fatalf("exit %d, want non-zero, an error annotation and %q:\n%s", code, tt.want, out)
			}
			if data, err := os.ReadFile(filepath.Join(temp, "github_path")); err == nil && len(data) > 0 {
				t.Errorf("a failed install added %q to GITHUB_PATH", data)
			}
		})
	}

	t.Run("a tampered binary", func(t *testing.T) {
		bad := t.TempDir()
		copyDir(t, dist, bad)
		asset := filepath.Join(bad, "cachelint-linux-"+runtime.GOARCH)
		f, err := os.OpenFile(asset, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString("tampered"); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		out, code, _ := install(t, map[string]string{"CACHELINT_VERSION": "v0.1.0", "CACHELINT_RELEASE_URL": "file://" + bad})
		if code == 0 || !strings.Contains(out, "checksum mismatch for cachelint-linux-"+runtime.GOARCH) {
			t.Fatalf("exit %d, want a checksum mismatch:\n%s", code, out)
		}
	})
	t.Run("a SHA256SUMS without the binary", func(t *testing.T) {
		bad := t.TempDir()
		copyDir(t, dist, bad)
		writeFile(t, filepath.Join(bad, "SHA256SUMS"), fmt.Sprintf("%x  cachelint-linux-other\n", sha256.Sum256(nil)))
		out, code, _ := install(t, map[string]string{"CACHELINT_VERSION": "v0.1.0", "CACHELINT_RELEASE_URL": "file://" + bad})
		if code == 0 || !strings.Contains(out, "SHA256SUMS has no line for cachelint-linux-"+runtime.GOARCH) {
			t.Fatalf("exit %d, want the missing line named:\n%s", code, out)
		}
	})
}

// TestActionRun runs the Action's check step (scripts/action-run.sh) in a subdirectory of
// the workspace, as working-directory does: annotations name files from the repository
// root, the exit code fails the step, and the args input is split, never run.
func TestActionRun(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cachelint; skipped with -short")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not on PATH")
	}
	bin := buildRelease(t, "0.1.0")
	ws := filepath.Join(t.TempDir(), "repo")
	sub := filepath.Join(ws, "services", "trainer")
	copyDir(t, filepath.Join("testdata", "precommit"), sub)
	summary := filepath.Join(t.TempDir(), "summary.md")
	script := filepath.Join(moduleRoot(t), "scripts", "action-run.sh")
	run := func(args string) (string, int) {
		t.Helper()
		return runScript(t, script, map[string]string{
			"PATH":                filepath.Dir(bin) + string(os.PathListSeparator) + withoutGo(os.Getenv("PATH")),
			"GITHUB_WORKSPACE":    ws,
			"GITHUB_STEP_SUMMARY": summary,
			"CACHELINT_ARGS":      args,
		}, sub)
	}

	out, code := run("bad.py  clean.py --extend-select CL003")
	if code != 1 || !strings.Contains(out, "::error file=services/trainer/bad.py,line=") {
		t.Fatalf("exit %d, want 1 and an annotation on services/trainer/bad.py:\n%s", code, out)
	}
	if strings.Contains(out, "file=bad.py") || strings.Contains(out, "clean.py") {
		t.Errorf("an annotation names a file from the working directory, or the clean file:\n%s", out)
	}
	if data, err := os.ReadFile(summary); err != nil || !strings.Contains(string(data), "services/trainer/bad.py:") {
		t.Errorf("step summary %q (%v) does not name services/trainer/bad.py", data, err)
	}

	if out, code := run("clean.py"); code != 0 || strings.Contains(out, "::error") {
		t.Errorf("clean.py: exit %d, want 0 and no annotation:\n%s", code, out)
	}
	// The args input is words for cachelint, not shell code.
	out, code = run("clean.py $(touch pwned) ;touch pwned2")
	if _, err := os.Stat(filepath.Join(sub, "pwned")); err == nil {
		t.Errorf("the args input ran as shell code:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(sub, "pwned2")); err == nil {
		t.Errorf("the args input ran as shell code:\n%s", out)
	}
	if code == 0 {
		t.Errorf("exit 0 for paths that do not exist ($(touch, pwned), ...):\n%s", out)
	}
}

// actionDist writes a release folder as scripts/dist.sh lays one out, for this machine's
// architecture only: the binary as cachelint-linux-GOARCH, stamped 0.1.0, and SHA256SUMS.
// It returns the runner's name for the architecture and the folder.
func actionDist(t *testing.T) (string, string) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds cachelint; skipped with -short")
	}
	runnerArch := map[string]string{"amd64": "X64", "arm64": "ARM64"}[runtime.GOARCH]
	if runtime.GOOS != "linux" || runnerArch == "" {
		t.Skipf("no release binary for %s/%s", runtime.GOOS, runtime.GOARCH)
	}
	for _, tool := range []string{"bash", "curl", "sha256sum", "awk"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not on PATH (the runner has it; Debian: apt-get install -y %s)", tool, tool)
		}
	}
	bin := buildRelease(t, "0.1.0")
	dist := t.TempDir()
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	asset := "cachelint-linux-" + runtime.GOARCH
	if err := os.WriteFile(filepath.Join(dist, asset), data, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dist, "SHA256SUMS"), fmt.Sprintf("%x  %s\n%x  cachelint-0.1.0-py3-none-other.whl\n", sha256.Sum256(data), asset, sha256.Sum256(nil)))
	return runnerArch, dist
}

// runScript runs a bash script in dir with exactly the environment vars, and returns its
// combined output and exit code.
func runScript(t *testing.T, script string, vars map[string]string, dir string) (string, int) {
	t.Helper()
	cmd := exec.Command("bash", script)
	cmd.Dir = dir
	for k, v := range vars {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	return runExit(t, cmd)
}
