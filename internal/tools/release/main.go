//go:build release

// Command release runs the steps of scripts/dist.sh that are not the go command's: the
// PEP 440 version and the wheels. The build tag keeps it out of `go install ./...` (the
// golang pre-commit hook): go run -tags release ./internal/tools/release.
package main

import (
	"os"

	"github.com/cachelint/cachelint/internal/release"
)

func main() {
	os.Exit(release.Run(os.Args[1:], os.Stdout, os.Stderr))
}
