// Command slow is a plugin for specd's acceptance tests, built with the
// SDK. It defaults the kinds of slow.example.com: it sets
// spec.defaultedBy to "slow/<its pid>", after sleeping as long as the
// object's annotation test.specd.io/sleep says ("5s"), deaf to
// cancellation, as a plugin that hangs is.
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/specd-io/specd/plugins/sdk"
)

const group = "slow.example.com"

func main() {
	var handlers []sdk.Handler
	for _, kind := range []string{"Probe", "Sample", "Timer", "Lapse"} {
		handlers = append(handlers, sdk.Defaulter(group, kind, defaultObject))
	}
	sdk.Serve(handlers...)
}

func defaultObject(_ context.Context, req *sdk.AdmissionRequest) error {
	if s := req.Object.String(sdk.Path("metadata", "annotations", "test.specd.io/sleep")); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("annotation test.specd.io/sleep: %w", err)
		}
		time.Sleep(d)
	}
	return req.Object.Set("spec.defaultedBy", fmt.Sprintf("slow/%d", os.Getpid()))
}
