package release

import (
	"archive/zip"
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Project is the distribution name on PyPI and of the wheel's files.
const Project = "cachelint"

// Wheel describes a wheel that installs one executable on PATH the way ruff's and uv's
// do (PEP 427, PEP 491): the binary is the one file of the wheel's scripts directory,
// which pip copies to the environment's bin with its executable bit, and the wheel holds
// no Python package (Root-Is-Purelib: false, since the payload is platform-specific).
type Wheel struct {
	Version  string // PEP 440, canonical
	Platform string // a platform tag: PlatformTag's result
	Binary   string // the cachelint executable to carry
}

// PlatformTag is the wheel platform tag for a release binary of goos/goarch.
// manylinux_2_28 is the glibc floor scripts/dist.sh checks the binaries against.
func PlatformTag(goos, goarch string) (string, error) {
	if goos != "linux" {
		return "", fmt.Errorf("no wheel platform for %s/%s: release builds are linux/amd64 and linux/arm64", goos, goarch)
	}
	switch goarch {
	case "amd64":
		return "manylinux_2_28_x86_64", nil
	case "arm64":
		return "manylinux_2_28_aarch64", nil
	}
	return "", fmt.Errorf("no wheel platform for linux/%s: release builds are linux/amd64 and linux/arm64", goarch)
}

// FileName is the wheel's name: {name}-{version}-{python tag}-{abi tag}-{platform tag}.whl.
// py3-none: any Python 3, no ABI, because nothing in it is Python.
func (w Wheel) FileName() string {
	return fmt.Sprintf("%s-%s-py3-none-%s.whl", Project, w.Version, w.Platform)
}

func (w Wheel) check() error {
	if err := CheckVersion(w.Version); err != nil {
		return err
	}
	if w.Platform == "" || strings.ContainsAny(w.Platform, "-/ ") {
		return fmt.Errorf("wheel platform tag %q: want one like manylinux_2_28_x86_64", w.Platform)
	}
	return nil
}

// Write writes the wheel into dir and returns its path.
func (w Wheel) Write(dir string) (string, error) {
	if err := w.check(); err != nil {
		return "", err
	}
	bin, err := os.ReadFile(w.Binary)
	if err != nil {
		return "", fmt.Errorf("read the executable: %w", err)
	}
	var buf bytes.Buffer
	if err := w.write(&buf, bin); err != nil {
		return "", err
	}
	path := filepath.Join(dir, w.FileName())
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return "", fmt.Errorf("write wheel: %w", err)
	}
	return path, nil
}

// wheelFile is one member of the wheel.
type wheelFile struct {
	name string
	mode os.FileMode
	data []byte
}

func (w Wheel) write(out io.Writer, bin []byte) error {
	distInfo := Project + "-" + w.Version + ".dist-info/"
	files := []wheelFile{
		{Project + "-" + w.Version + ".data/scripts/" + Project, 0o755, bin},
		{distInfo + "METADATA", 0o644, []byte(w.metadata())},
		{distInfo + "WHEEL", 0o644, []byte(w.wheelInfo())},
	}
	// RECORD lists every other file with its hash and size, and itself with neither;
	// PEP 427 puts it last so the archive can be read front to back.
	var record strings.Builder
	for _, f := range files {
		sum := sha256.Sum256(f.data)
		fmt.Fprintf(&record, "%s,sha256=%s,%d\n", f.name, base64.RawURLEncoding.EncodeToString(sum[:]), len(f.data))
	}
	record.WriteString(distInfo + "RECORD,,\n")
	files = append(files, wheelFile{distInfo + "RECORD", 0o644, []byte(record.String())})

	zw := zip.NewWriter(out)
	for _, f := range files {
		h := &zip.FileHeader{
			Name:   f.name,
			Method: zip.Deflate,
			// A fixed time keeps the wheel's bytes (and its SHA256SUMS line) a function
			// of its contents; the zip format starts at 1980.
			Modified: time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC),
		}
		// The Unix mode travels in the external attributes; pip sets the executable bit
		// on the installed script from it.
		h.SetMode(f.mode)
		fw, err := zw.CreateHeader(h)
		if err != nil {
			return fmt.Errorf("wheel member %s: %w", f.name, err)
		}
		if _, err := fw.Write(f.data); err != nil {
			return fmt.Errorf("wheel member %s: %w", f.name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("wheel: %w", err)
	}
	return nil
}

// metadata is the core metadata (METADATA, version 2.1).
func (w Wheel) metadata() string {
	return "Metadata-Version: 2.1\n" +
		"Name: " + Project + "\n" +
		"Version: " + w.Version + "\n" +
		"Summary: Find costly torch.cuda.empty_cache() calls in PyTorch code.\n" +
		"Project-URL: Source, https://github.com/cachelint/cachelint\n" +
		"Description-Content-Type: text/markdown\n" +
		"\n" +
		"cachelint is a static analyzer for Python/PyTorch code that finds costly\n" +
		"`torch.cuda.empty_cache()` calls. This wheel carries the `cachelint` executable\n" +
		"(" + w.Platform + ") and puts it on PATH; it contains no Python code.\n"
}

// wheelInfo is the WHEEL file.
func (w Wheel) wheelInfo() string {
	return "Wheel-Version: 1.0\n" +
		"Generator: cachelint internal/tools/release\n" +
		"Root-Is-Purelib: false\n" +
		"Tag: py3-none-" + w.Platform + "\n"
}
