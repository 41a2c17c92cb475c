//go:build probecmd

// Command probecmd runs `cachelint probe` on its own, for GPU machines where the full CLI
// is not needed (it builds with CGO_ENABLED=0, so it runs on any glibc). The build tag keeps
// it out of `go install ./...`, which is how pre-commit installs the golang hook:
// go build -tags probecmd ./bench/gpu/probecmd.
package main

import (
	"context"
	"os"
	"os/signal"

	runtimecheck "github.com/cachelint/cachelint/runtime-check"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := runtimecheck.RunProbe(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
