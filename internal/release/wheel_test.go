package release

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestWheel(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "cachelint")
	payload := []byte("\x7fELF not really a binary\n")
	if err := os.WriteFile(bin, payload, 0o755); err != nil {
		t.Fatal(err)
	}
	w := Wheel{Version: "0.1.1.dev3+g0123456789ab", Platform: "manylinux_2_28_x86_64", Binary: bin}
	path, err := w.Write(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := filepath.Base(path), "cachelint-0.1.1.dev3+g0123456789ab-py3-none-manylinux_2_28_x86_64.whl"; got != want {
		t.Errorf("wheel name %q, want %q", got, want)
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()

	const data, info = "cachelint-0.1.1.dev3+g0123456789ab.data/", "cachelint-0.1.1.dev3+g0123456789ab.dist-info/"
	wantNames := []string{data + "scripts/cachelint", info + "METADATA", info + "WHEEL", info + "RECORD"}
	members := map[string][]byte{}
	var names []string
	for _, f := range zr.File {
		names = append(names, f.Name)
		members[f.Name] = readMember(t, f)
		wantMode := os.FileMode(0o644)
		if f.Name == wantNames[0] {
			wantMode = 0o755
		}
		if f.Mode() != wantMode {
			t.Errorf("%s: mode %v, want %v", f.Name, f.Mode(), wantMode)
		}
	}
	if strings.Join(names, " ") != strings.Join(wantNames, " ") {
		t.Fatalf("members %q, want %q (RECORD last)", names, wantNames)
	}
	if !bytes.Equal(members[wantNames[0]], payload) {
		t.Errorf("the script is not the binary")
	}
	for _, want := range []string{"Root-Is-Purelib: false\n", "Tag: py3-none-manylinux_2_28_x86_64\n", "Wheel-Version: 1.0\n"} {
		if !strings.Contains(string(members[info+"WHEEL"]), want) {
			t.Errorf("WHEEL lacks %q:\n%s", want, members[info+"WHEEL"])
		}
	}
	for _, want := range []string{"Metadata-Version: 2.1\n", "Name: cachelint\n", "Version: 0.1.1.dev3+g0123456789ab\n"} {
		if !strings.Contains(string(members[info+"METADATA"]), want) {
			t.Errorf("METADATA lacks %q:\n%s", want, members[info+"METADATA"])
		}
	}

	// RECORD: every other member once, with its urlsafe-base64 sha256 (no padding) and size.
	rows, err := csv.NewReader(bytes.NewReader(members[info+"RECORD"])).ReadAll()
	if err != nil {
		t.Fatalf("RECORD: %v", err)
	}
	if len(rows) != len(wantNames) {
		t.Fatalf("RECORD has %d rows, want %d:\n%s", len(rows), len(wantNames), members[info+"RECORD"])
	}
	for i, row := range rows {
		if row[0] != wantNames[i] {
			t.Errorf("RECORD row %d names %q, want %q", i, row[0], wantNames[i])
			continue
		}
		if row[0] == info+"RECORD" {
			if row[1] != "" || row[2] != "" {
				t.Errorf("RECORD's own row has a hash or size: %q", row)
			}
			continue
		}
		sum := sha256.Sum256(members[row[0]])
		if want := "sha256=" + base64.RawURLEncoding.EncodeToString(sum[:]); row[1] != want {
			t.Errorf("RECORD hash of %s = %s, want %s", row[0], row[1], want)
		}
		if want := strconv.Itoa(len(members[row[0]])); row[2] != want {
			t.Errorf("RECORD size of %s = %s, want %s", row[0], row[2], want)
		}
	}

	// The same inputs give the same bytes: SHA256SUMS stays a function of the contents.
	first, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	again := t.TempDir()
	path2, err := w.Write(again)
	if err != nil {
		t.Fatal(err)
	}
	second, err := os.ReadFile(path2)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first, second) {
		t.Error("two writes of the same wheel differ")
	}
}

func readMember(t *testing.T, f *zip.File) []byte {
	t.Helper()
	r, err := f.Open()
	if err != nil {
		t.Fatalf("%s: %v", f.Name, err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("%s: %v", f.Name, err)
	}
	return b
}

func TestWheelErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		w    Wheel
		want string
	}{
		{Wheel{Version: "v0.1.0", Platform: "manylinux_2_28_x86_64", Binary: "x"}, "not a canonical PEP 440 version"},
		{Wheel{Version: "0.1.0", Platform: "", Binary: "x"}, "platform tag"},
		{Wheel{Version: "0.1.0", Platform: "manylinux_2_28_x86_64", Binary: filepath.Join(dir, "missing")}, "read the executable"},
	}
	for _, tt := range tests {
		if _, err := tt.w.Write(dir); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Write(%+v) error = %v, want one containing %q", tt.w, err, tt.want)
		}
	}
	if _, err := PlatformTag("darwin", "arm64"); err == nil {
		t.Error("PlatformTag(darwin, arm64): no error")
	}
	if _, err := PlatformTag("linux", "riscv64"); err == nil {
		t.Error("PlatformTag(linux, riscv64): no error")
	}
}

func TestRun(t *testing.T) {
	tests := []struct {
		args       []string
		code       int
		out, stder string
	}{
		{[]string{"version", "v0.1.0-3-g0123456789ab", "10"}, 0, "0.1.1.dev3+g0123456789ab\n", ""},
		{[]string{"version", "v0.1.0-3-g0123456789ab"}, 2, "", "version takes DESCRIBE and COMMITS"},
		{[]string{"version", "v0.1.0-3-g0123456789ab", "many"}, 2, "", `COMMITS "many" is not a number`},
		{[]string{"version", "v0.1-3-gabcd", "1"}, 1, "", "release tags are vMAJOR.MINOR.PATCH"},
		{[]string{"check-version", "0.1.0"}, 0, "", ""},
		{[]string{"check-version", "v0.1.0"}, 1, "", "not a canonical PEP 440 version"},
		{[]string{"wheel", "-binary", "x", "-version", "0.1.0", "-goarch", "mips", "-out", "."}, 1, "", "no wheel platform for linux/mips"},
		{[]string{"wheel", "-binary", "x"}, 2, "", "wheel needs -binary, -version, -goarch and -out"},
		{[]string{"bogus"}, 2, "", `unknown command "bogus"`},
		{nil, 2, "", "no command"},
	}
	for _, tt := range tests {
		var out, errb bytes.Buffer
		code := Run(tt.args, &out, &errb)
		if code != tt.code || out.String() != tt.out || !strings.Contains(errb.String(), tt.stder) {
			t.Errorf("Run(%q) = %d, stdout %q, stderr %q; want %d, %q, stderr containing %q",
				tt.args, code, out.String(), errb.String(), tt.code, tt.out, tt.stder)
		}
	}
}
