package integration

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/cachelint/cachelint/internal/release"
)

// wheelVersion is the version the test's wheel carries, stamped into its binary.
const wheelVersion = "0.0.0.dev0+wheeltest"

// TestWheelInstall builds a wheel for this machine the way scripts/dist.sh does, checks it
// against PEP 427 (testdata/check_wheel.py), installs it with pip into a fresh virtualenv
// with no index, and runs the cachelint it put on the environment's PATH, with no Go on
// that PATH.
func TestWheelInstall(t *testing.T) {
	python := needVenv(t)
	whl := buildWheel(t)
	venv, err := installWheel(python, whl, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}

	proj := filepath.Join(t.TempDir(), "project")
	copyDir(t, filepath.Join("testdata", "precommit"), proj)
	path := filepath.Join(venv, "bin") + string(os.PathListSeparator) + withoutGo(os.Getenv("PATH"))
	run := func(args ...string) (string, int) {
		t.Helper()
		// Through the shell, so cachelint is found on PATH as a user would find it
		// (exec.Command would look it up on the test's own PATH).
		cmd := exec.Command("/bin/sh", "-c", `command -v go >/dev/null && { echo "go is on PATH"; exit 99; }; exec cachelint "$@"`, "sh")
		cmd.Args = append(cmd.Args, args...)
		cmd.Dir = proj
		cmd.Env = setEnv(os.Environ(), "PATH", path)
		return runExit(t, cmd)
	}

	if out, code := run("version"); code != 0 || !strings.HasPrefix(out, "cachelint "+wheelVersion) {
		t.Errorf("cachelint version: exit %d, output %q; want 0 and cachelint %s", code, out, wheelVersion)
	}
	if out, code := run("check", "bad.py"); code != 1 || !strings.Contains(out, "bad.py:") || !strings.Contains(out, "CL001") {
		t.Errorf("cachelint check bad.py: exit %d, want 1 and CL001 on bad.py; output:\n%s", code, out)
	}
	if out, code := run("check", "clean.py"); code != 0 || !strings.Contains(out, "All checks passed!") {
		t.Errorf("cachelint check clean.py: exit %d, want 0 and All checks passed!; output:\n%s", code, out)
	}
	if out, code := run("check", "--format", "bogus", "clean.py"); code != 2 {
		t.Errorf("cachelint check --format bogus: exit %d, want 2 (usage); output:\n%s", code, out)
	}

	// pip's own view: the distribution, its version and its one file in bin.
	show, err := exec.Command(filepath.Join(venv, "bin", "python"), "-m", "pip", "show", "--files", "--disable-pip-version-check", "cachelint").CombinedOutput()
	if err != nil {
		t.Fatalf("pip show: %v\n%s", err, show)
	}
	for _, want := range []string{"Name: cachelint", "Version: " + wheelVersion, filepath.Join("..", "..", "..", "bin", "cachelint")} {
		if !strings.Contains(string(show), want) {
			t.Errorf("pip show --files lacks %q:\n%s", want, show)
		}
	}
}

// TestWheelInstallRejectsBroken checks that installWheel, the check TestWheelInstall
// relies on, fails for wheels broken in the ways a hand-written wheel writer breaks them.
func TestWheelInstallRejectsBroken(t *testing.T) {
	python := needVenv(t)
	whl := buildWheel(t)
	tests := []struct {
		name string
		edit func(h *zip.FileHeader, data []byte) []byte
		want string
	}{
		{"RECORD hash wrong", func(h *zip.FileHeader, data []byte) []byte {
			if strings.HasSuffix(h.Name, "/RECORD") {
				return bytes.Replace(data, []byte("sha256="), []byte("sha256=A"), 1)
			}
			return data
		}, "RECORD hash of"},
		{"RECORD size wrong", func(h *zip.FileHeader, data []byte) []byte {
			if strings.HasSuffix(h.Name, "/RECORD") {
				// The first row is the script: path,sha256=...,SIZE. One byte more.
				row, rest, _ := strings.Cut(string(data), "\n")
				i := strings.LastIndexByte(row, ',')
				size, err := strconv.Atoi(row[i+1:])
				if err != nil {
					t.Fatalf("RECORD row %q: %v", row, err)
				}
				return []byte(row[:i+1] + strconv.Itoa(size+1) + "\n" + rest)
			}
			return data
		}, "RECORD size of"},
		{"executable bit missing", func(h *zip.FileHeader, data []byte) []byte {
			if strings.HasSuffix(h.Name, "/scripts/cachelint") {
				h.SetMode(0o644)
			}
			return data
		}, "not executable"},
		{"script not in scripts", func(h *zip.FileHeader, data []byte) []byte {
			if strings.HasSuffix(h.Name, "/scripts/cachelint") {
				h.Name = strings.Replace(h.Name, "/scripts/", "/data/", 1)
			}
			return data
		}, "RECORD does not list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			broken := filepath.Join(t.TempDir(), filepath.Base(whl))
			rewriteZip(t, whl, broken, tt.edit)
			_, err := installWheel(python, broken, t.TempDir())
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("installWheel accepted the broken wheel or failed otherwise: %v; want an error containing %q", err, tt.want)
			}
		})
	}
}

// needVenv returns python3 when it can make a virtualenv with pip in it.
func needVenv(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds cachelint and a virtualenv; skipped with -short")
	}
	if _, err := release.PlatformTag(runtime.GOOS, runtime.GOARCH); err != nil {
		t.Skipf("no wheel for this machine: %v", err)
	}
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 is not on PATH: install it to run this test (Debian/Ubuntu: apt-get install -y python3 python3-venv). CI installs it in .ci/run.")
	}
	probe := filepath.Join(t.TempDir(), "venv")
	if out, err := exec.Command(python, "-m", "venv", probe).CombinedOutput(); err != nil {
		t.Skipf("python3 -m venv fails (Debian/Ubuntu: apt-get install -y python3-venv; CI installs it in .ci/run): %v\n%s", err, out)
	}
	return python
}

// buildWheel builds cachelint for this machine as scripts/dist.sh does and writes its
// wheel with the writer dist.sh runs.
func buildWheel(t *testing.T) string {
	t.Helper()
	bin := buildRelease(t, wheelVersion)
	platform, err := release.PlatformTag(runtime.GOOS, runtime.GOARCH)
	if err != nil {
		t.Fatal(err)
	}
	whl, err := release.Wheel{Version: wheelVersion, Platform: platform, Binary: bin}.Write(filepath.Dir(bin))
	if err != nil {
		t.Fatal(err)
	}
	return whl
}

// buildRelease builds cachelint for this machine the way scripts/dist.sh does, with
// version stamped.
func buildRelease(t *testing.T, version string) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "cachelint")
	build := exec.Command("go", "build", "-trimpath", "-tags", "glibc228",
		"-ldflags", "-X github.com/cachelint/cachelint/internal/cli.Version="+version,
		"-o", bin, "github.com/cachelint/cachelint/cmd/cachelint")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build cachelint: %v\n%s", err, out)
	}
	return bin
}

// installWheel checks whl against PEP 427, makes a virtualenv in dir and pip-installs
// whl there from no index; it returns the virtualenv once its bin holds an executable
// cachelint.
func installWheel(python, whl, dir string) (string, error) {
	check, err := filepath.Abs(filepath.Join("testdata", "check_wheel.py"))
	if err != nil {
		return "", err
	}
	if out, err := exec.Command(python, check, whl).CombinedOutput(); err != nil {
		return "", fmt.Errorf("check_wheel.py: %w\n%s", err, out)
	}
	venv := filepath.Join(dir, "venv")
	if out, err := exec.Command(python, "-m", "venv", venv).CombinedOutput(); err != nil {
		return "", fmt.Errorf("python3 -m venv: %w\n%s", err, out)
	}
	pip := exec.Command(filepath.Join(venv, "bin", "python"), "-m", "pip", "install",
		"--no-index", "--no-deps", "--disable-pip-version-check", whl)
	if out, err := pip.CombinedOutput(); err != nil {
		return "", fmt.Errorf("pip install %s: %w\n%s", filepath.Base(whl), err, out)
	}
	exe := filepath.Join(venv, "bin", "cachelint")
	fi, err := os.Stat(exe)
	if err != nil {
		return "", fmt.Errorf("pip installed no cachelint in the virtualenv's bin: %w", err)
	}
	if fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("%s is not executable (mode %v): the wheel's script lacks its executable bit", exe, fi.Mode())
	}
	return venv, nil
}

// rewriteZip copies the zip src to dst, passing each member's header and contents
// through edit.
func rewriteZip(t *testing.T, src, dst string, edit func(h *zip.FileHeader, data []byte) []byte) {
	t.Helper()
	zr, err := zip.OpenReader(src)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range zr.File {
		r, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		data, err := io.ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		h := f.FileHeader
		data = edit(&h, data)
		w, err := zw.CreateHeader(&h)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dst, buf.String())
}
