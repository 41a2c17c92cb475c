package cli

import (
	"fmt"
	"os"
	"runtime/debug"
	"strings"
)

// Version is the release version, stamped by scripts/dist.sh with
// -ldflags "-X github.com/cachelint/cachelint/internal/cli.Version=0.1.0". Left empty, the
// version comes from the build info: the module version for `go install ...@v0.1.0`,
// "(devel)" for a build from a checkout.
var Version = ""

// buildVersion is what `cachelint version` and SARIF report.
type buildVersion struct {
	version  string // release or module version, "(devel)" when neither is known
	revision string // VCS commit, empty when the build has none
	time     string // the commit's time, RFC 3339
	modified bool   // built from a working tree with uncommitted changes
}

// readVersion combines the stamped release version with the build info (nil when the
// binary has none). The stamp wins over the module version: a release build from a clone
// is "(devel)" to the Go toolchain.
func readVersion(stamped string, info *debug.BuildInfo) buildVersion {
	v := buildVersion{version: stamped}
	if info == nil {
		if v.version == "" {
			v.version = "(devel)"
		}
		return v
	}
	if v.version == "" {
		v.version = info.Main.Version
	}
	if v.version == "" {
		v.version = "(devel)"
	}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			v.revision = s.Value
		case "vcs.time":
			v.time = s.Value
		case "vcs.modified":
			v.modified = s.Value == "true"
		}
	}
	return v
}

// String is the `cachelint version` line after the program name, as ruff writes a dev
// build's: "0.1.0 (11c9909a1b2c 2026-12-04)", with ", modified" for a dirty tree.
func (v buildVersion) String() string {
	var extra []string
	if v.revision != "" {
		rev := v.revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if date, _, _ := strings.Cut(v.time, "T"); date != "" {
			rev += " " + date
		}
		extra = append(extra, rev)
	}
	if v.modified {
		extra = append(extra, "modified")
	}
	if len(extra) == 0 {
		return v.version
	}
	return v.version + " (" + strings.Join(extra, ", ") + ")"
}

// currentVersion is this binary's version.
func currentVersion() buildVersion {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		info = nil
	}
	return readVersion(Version, info)
}

// cacheKey tells this build's analysis apart from another's: a release's version, or for a
// development build (whose version string stays the same across changes) also the
// binary's path, size and time.
func (v buildVersion) cacheKey() string {
	key := fmt.Sprintf("%s %s %t", v.version, v.revision, v.modified)
	if v.version == "(devel)" || v.modified {
		if exe, err := os.Executable(); err == nil {
			if fi, err := os.Stat(exe); err == nil {
				key += fmt.Sprintf(" %s %d %d", exe, fi.Size(), fi.ModTime().UnixNano())
			}
		}
	}
	return key
}
