package aggregated

import (
	"context"
	"time"

	"github.com/specd-io/specd/engine/background"
	"github.com/specd-io/specd/schemas"
	"github.com/specd-io/specd/server/apiservices"
	"github.com/specd-io/specd/serving"
)

// apiServiceResync is how often the elected replica puts the
// APIServices back as the schemas say, besides after every reload.
const apiServiceResync = time.Minute

// Followers are the reload followers of aggregation: the registrar, if
// any (nil r: none).
func Followers(r *apiservices.Registrar) []serving.Follower {
	if r == nil {
		return nil
	}
	return []serving.Follower{r}
}

// RegistrarJobs put the APIServices back every apiServiceResync, in the
// elected replica; none for a nil r.
func RegistrarJobs(r *apiservices.Registrar, registry func() *schemas.Registry) []background.Job {
	if r == nil {
		return nil
	}
	return []background.Job{background.JobFunc(func(ctx context.Context) { r.Run(ctx, registry, apiServiceResync) })}
}
