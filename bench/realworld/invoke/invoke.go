// Package invoke runs a cachelint binary over a materialised tree for the real-world
// commands (score, sidebyside) and reads its JSON output.
package invoke

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Binary makes a binary named by a path (`./cachelint`, `bin/cachelint`) absolute, since
// the commands run it from inside each tree; a bare name is left to PATH.
func Binary(bin string) string {
	if strings.ContainsRune(bin, os.PathSeparator) {
		if abs, err := filepath.Abs(bin); err == nil {
			return abs
		}
	}
	return bin
}

// JSON runs bin with args from inside dir, so that paths come out relative to the tree, and
// decodes its standard output into into.
func JSON(bin, dir string, args []string, into any) error {
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s in %s: %w: %s", bin, strings.Join(args, " "), dir, err, strings.TrimSpace(stderr.String()))
	}
	if err := json.Unmarshal(stdout.Bytes(), into); err != nil {
		return fmt.Errorf("%s %s in %s: read JSON: %w", bin, args[0], dir, err)
	}
	return nil
}
