package main

import (
	"context"
	"io"

	"github.com/specd-io/specd/loadtest"
)

func benchCommand(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return loadtest.Command(ctx, args, stdout, stderr)
}
