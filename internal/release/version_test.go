package release

import (
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	tests := []struct {
		describe string
		commits  int
		want     string
	}{
		{"v0.1.0-0-g0123456789ab", 7, "0.1.0"},
		{"v0.1.0-3-g0123456789ab", 10, "0.1.1.dev3+g0123456789ab"},
		{"v0.1.0-0-g0123456789ab-dirty", 7, "0.1.1.dev0+g0123456789ab.dirty"},
		{"v1.20.9-12-gabcdef0-dirty", 99, "1.20.10.dev12+gabcdef0.dirty"},
		{"0123456789ab", 42, "0.0.0.dev42+g0123456789ab"},
		{"0123456789ab-dirty\n", 42, "0.0.0.dev42+g0123456789ab.dirty"},
	}
	for _, tt := range tests {
		got, err := Version(tt.describe, tt.commits)
		if err != nil {
			t.Errorf("Version(%q): %v", tt.describe, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Version(%q) = %q, want %q", tt.describe, got, tt.want)
		}
		if err := CheckVersion(got); err != nil {
			t.Errorf("Version(%q) = %q, not PEP 440: %v", tt.describe, got, err)
		}
	}
}

func TestVersionErrors(t *testing.T) {
	tests := []struct {
		describe string
		commits  int
		want     string
	}{
		{"v0.2.0-rc1-0-g0123456789ab", 1, "tag v0.2.0-rc1 is not a release tag"},
		{"v1.2-3-g0123456789ab", 1, "tag v1.2 is not a release tag"},
		{"v01.2.3-0-g0123456789ab", 1, "not a release tag"},
		{"v0.1.0", 1, "cannot read git describe output"},
		{"", 1, "cannot read git describe output"},
		{"0123456789ab", -1, "negative"},
	}
	for _, tt := range tests {
		_, err := Version(tt.describe, tt.commits)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Version(%q) error = %v, want one containing %q", tt.describe, err, tt.want)
		}
	}
}

func TestCheckVersion(t *testing.T) {
	for _, v := range []string{"0.1.0", "1!2.0", "0.2.0rc1", "0.1.0.post1", "0.1.1.dev3+g0123456789ab.dirty", "10"} {
		if err := CheckVersion(v); err != nil {
			t.Errorf("CheckVersion(%q): %v", v, err)
		}
	}
	// Forms pip would normalise (v prefix, dashes, capitals, leading zeros) or reject.
	for _, v := range []string{"", "v0.1.0", "0.1.0-rc1", "0.1.0RC1", "01.0", "0.1.0+", "0.1.0+G1", "0.1.0 ", "0.1.0-3-gabc"} {
		if err := CheckVersion(v); err == nil {
			t.Errorf("CheckVersion(%q) accepted a non-canonical version", v)
		}
	}
}
