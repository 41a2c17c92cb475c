package cli

import (
	"context"
	"io"

	runtimecheck "github.com/cachelint/cachelint/runtime-check"
)

func runProbe(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if code := runtimecheck.RunProbe(ctx, args, stdout, stderr); code != 0 {
		return &exitError{code: code}
	}
	return nil
}
