package release

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

var (
	// git describe --tags --long --match 'v[0-9]*' --dirty --abbrev=12 on a tagged history:
	// the tag, the commits since it and the commit.
	describedTag = regexp.MustCompile(`^v(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)-([0-9]+)-g([0-9a-f]{4,40})(-dirty)?$`)
	// The same with no tag reachable (--always): the commit alone.
	describedCommit = regexp.MustCompile(`^([0-9a-f]{4,40})(-dirty)?$`)
	// A tag that matched --match 'v[0-9]*' but is not vMAJOR.MINOR.PATCH.
	describedOtherTag = regexp.MustCompile(`^(v[0-9].*)-[0-9]+-g[0-9a-f]+(-dirty)?$`)

	// PEP 440's canonical form (its appendix B), with a local version label.
	pep440 = regexp.MustCompile(`^([1-9][0-9]*!)?(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))*((a|b|rc)(0|[1-9][0-9]*))?(\.post(0|[1-9][0-9]*))?(\.dev(0|[1-9][0-9]*))?(\+[a-z0-9]+(\.[a-z0-9]+)*)?$`)
)

// Version maps the output of
//
//	git describe --tags --long --match 'v[0-9]*' --dirty --abbrev=12 --always
//
// to the PEP 440 version a release build and its wheels carry; commits is
// `git rev-list --count HEAD`, used only when no tag is reachable. The mapping is
// setuptools-scm's default (guess-next-dev), so a build between releases sorts after the
// last release and before the next:
//
//	v0.1.0-0-g0123456789ab        0.1.0                          (the tagged commit)
//	v0.1.0-3-g0123456789ab        0.1.1.dev3+g0123456789ab       (3 commits after v0.1.0)
//	v0.1.0-0-g0123456789ab-dirty  0.1.1.dev0+g0123456789ab.dirty (uncommitted changes)
//	0123456789ab                  0.0.0.dev{commits}+g0123456789ab (no tag yet)
//
// Release tags are vMAJOR.MINOR.PATCH; any other v tag is an error, not a guess.
func Version(describe string, commits int) (string, error) {
	describe = strings.TrimSpace(describe)
	if m := describedTag.FindStringSubmatch(describe); m != nil {
		distance, err := strconv.Atoi(m[4])
		if err != nil {
			return "", fmt.Errorf("git describe %q: commit count: %w", describe, err)
		}
		dirty := m[6] != ""
		if distance == 0 && !dirty {
			return m[1] + "." + m[2] + "." + m[3], nil
		}
		patch, err := strconv.Atoi(m[3])
		if err != nil {
			return "", fmt.Errorf("git describe %q: patch version: %w", describe, err)
		}
		return fmt.Sprintf("%s.%s.%d.dev%d+%s", m[1], m[2], patch+1, distance, local(m[5], dirty)), nil
	}
	if m := describedCommit.FindStringSubmatch(describe); m != nil {
		if commits < 0 {
			return "", fmt.Errorf("commit count %d is negative", commits)
		}
		return fmt.Sprintf("0.0.0.dev%d+%s", commits, local(m[1], m[2] != "")), nil
	}
	if m := describedOtherTag.FindStringSubmatch(describe); m != nil {
		return "", fmt.Errorf("tag %s is not a release tag: release tags are vMAJOR.MINOR.PATCH (v0.1.0)", m[1])
	}
	return "", fmt.Errorf("cannot read git describe output %q: want TAG-N-gHASH[-dirty] (--long) or HASH[-dirty] (--always)", describe)
}

// local is the local version label: the commit as setuptools-scm writes it, and whether
// the tree had uncommitted changes.
func local(commit string, dirty bool) string {
	l := "g" + commit
	if dirty {
		l += ".dirty"
	}
	return l
}

// CheckVersion reports whether v is a PEP 440 version in canonical form, as a version
// given by hand (CACHELINT_VERSION) must be: pip would reject or rewrite anything else, and
// the wheel's file name and METADATA would disagree.
func CheckVersion(v string) error {
	if !pep440.MatchString(v) {
		return fmt.Errorf("version %q is not a canonical PEP 440 version (like 0.1.0, 0.2.0rc1 or 0.1.1.dev3+g0123456789ab)", v)
	}
	return nil
}
