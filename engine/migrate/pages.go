package migrate

import (
	"context"
	"fmt"

	"github.com/specd-io/specd/engine/storage"
)

// eachPage lists the keys under prefix a page at a time, from opts (its
// Limit and StartKey), and calls fn with every page until the last. With
// snapshot set, every page after the first is read at the first one's
// revision. A list error is returned as "migrate: <what>: <err>"; fn's
// errors as they are.
func eachPage(ctx context.Context, st storage.Storage, prefix string, opts storage.ListOptions, snapshot bool, what string, fn func(storage.ListResult) error) error {
	for {
		page, err := st.List(ctx, prefix, opts)
		if err != nil {
			return fmt.Errorf("migrate: %s: %w", what, err)
		}
		if err := fn(page); err != nil {
			return err
		}
		if !page.More || len(page.Items) == 0 {
			return nil
		}
		opts.StartKey = page.Items[len(page.Items)-1].Key + "\x00"
		if snapshot {
			opts.Revision = page.Revision
		}
	}
}
