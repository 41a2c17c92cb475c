// Command cachelint finds costly torch.cuda.empty_cache() calls in Python/PyTorch code.
package main

import (
	"context"
	"os"
	"os/signal"

	"github.com/cachelint/cachelint/analyzers"
	"github.com/cachelint/cachelint/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := cli.Run(ctx, analyzers.Engine, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
