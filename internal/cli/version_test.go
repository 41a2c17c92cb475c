package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
)

func TestReadVersion(t *testing.T) {
	vcs := []debug.BuildSetting{
		{Key: "vcs", Value: "git"},
		{Key: "vcs.revision", Value: "11c9909a1b2c3d4e5f60718293a4b5c6d7e8f901"},
		{Key: "vcs.time", Value: "2026-12-04T16:45:00Z"},
		{Key: "vcs.modified", Value: "false"},
	}
	dirty := append(append([]debug.BuildSetting(nil), vcs[:3]...), debug.BuildSetting{Key: "vcs.modified", Value: "true"})
	tests := []struct {
		name    string
		stamped string
		info    *debug.BuildInfo
		want    string
	}{
		{"release build from a clone: the stamp wins over (devel)", "0.1.0",
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs},
			"0.1.0 (11c9909a1b2c 2026-12-04)"},
		{"go install ...@v0.1.0: the module version, no VCS", "",
			&debug.BuildInfo{Main: debug.Module{Version: "v0.1.0"}},
			"v0.1.0"},
		{"build from a dirty checkout", "",
			&debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: dirty},
			"(devel) (11c9909a1b2c 2026-12-04, modified)"},
		{"no build info", "", nil, "(devel)"},
		{"no build info, stamped", "0.2.0", nil, "0.2.0"},
		{"empty module version", "", &debug.BuildInfo{}, "(devel)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := readVersion(tt.stamped, tt.info).String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

// TestVersionFromBuildInfo builds cachelint from this checkout without a stamp and checks
// that `cachelint version` names the commit the Go toolchain recorded, and the dirty flag
// as git sees it. The transcripts check the stamped version (info.ct).
func TestVersionFromBuildInfo(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cachelint; skipped with -short")
	}
	git := func(args ...string) string {
		t.Helper()
		out, err := exec.Command("git", args...).Output()
		if err != nil {
			t.Skipf("git %s: %v: needs git and a git checkout for the VCS stamp", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	top := git("rev-parse", "--show-toplevel")
	if fi, err := os.Stat(filepath.Join(top, ".git")); err != nil || !fi.IsDir() {
		// cmd/go/internal/vcs looks for a .git directory; a worktree's .git is a file.
		t.Skipf("%s/.git is not a directory (a git worktree?): the go command records no VCS information there", top)
	}
	head := git("rev-parse", "HEAD")
	// The go command's own test for a modified tree (cmd/go/internal/vcs).
	dirty := git("status", "--porcelain") != ""

	bin := filepath.Join(t.TempDir(), "cachelint")
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, "github.com/cachelint/cachelint/cmd/cachelint")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatalf("cachelint version: %v", err)
	}
	got := strings.TrimSpace(string(out))
	// Go 1.24+ derives the module version from the commit (v0.0.0-DATE-REV[+dirty]);
	// older toolchains say (devel). Either way the revision follows in parentheses.
	want := " (" + head[:12] + " "
	if !strings.HasPrefix(got, "cachelint ") || !strings.Contains(got, want) {
		t.Errorf("cachelint version = %q, want the commit after the version: %q", got, want)
	}
	if strings.HasSuffix(got, ", modified)") != dirty {
		t.Errorf("cachelint version = %q; git status says modified=%v", got, dirty)
	}
}
