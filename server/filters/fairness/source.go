package fairness

import (
	"context"
	"sync"

	"github.com/google/uuid"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap"
	flowcontrolapply "k8s.io/client-go/applyconfigurations/flowcontrol/v1"
	"k8s.io/client-go/kubernetes"
	flowcontrolclient "k8s.io/client-go/kubernetes/typed/flowcontrol/v1"
)

// builtinVersion is the resourceVersion of the built-in objects: they
// never change.
const builtinVersion = "1"

// builtinUID is the uid of a built-in object, the same on every specd:
// the filter names it in every answer's X-Kubernetes-PF-FlowSchema-UID and
// X-Kubernetes-PF-PriorityLevel-UID headers.
func builtinUID(resource, name string) types.UID {
	return types.UID(uuid.NewSHA1(uuid.NameSpaceURL, []byte("specd:flowcontrol/"+resource+"/"+name)).String())
}

// builtinClient is the one part of a clientset that kube's controller and
// its informers use: list and watch the flowcontrol objects, and apply the
// status of a FlowSchema. It lists kube's built-in configuration, its
// watches never end and never deliver, and it ignores status updates (the
// built-in FlowSchemas never dangle). Any other method panics: nothing
// calls one.
type builtinClient struct{ kubernetes.Interface }

func (builtinClient) FlowcontrolV1() flowcontrolclient.FlowcontrolV1Interface {
	return builtinFlowcontrol{}
}

// IsWatchListSemanticsUnSupported makes the informers list, then watch,
// instead of asking for a streaming list.
func (builtinClient) IsWatchListSemanticsUnSupported() bool { return true }

type builtinFlowcontrol struct {
	flowcontrolclient.FlowcontrolV1Interface
}

func (builtinFlowcontrol) FlowSchemas() flowcontrolclient.FlowSchemaInterface {
	return builtinFlowSchemas{}
}

func (builtinFlowcontrol) PriorityLevelConfigurations() flowcontrolclient.PriorityLevelConfigurationInterface {
	return builtinPriorityLevels{}
}

type builtinFlowSchemas struct {
	flowcontrolclient.FlowSchemaInterface
}

func (builtinFlowSchemas) List(context.Context, metav1.ListOptions) (*flowcontrolv1.FlowSchemaList, error) {
	return &flowcontrolv1.FlowSchemaList{
		ListMeta: metav1.ListMeta{ResourceVersion: builtinVersion},
		Items:    builtinItems("flowschemas", bootstrap.MandatoryFlowSchemas, bootstrap.SuggestedFlowSchemas),
	}, nil
}

func (builtinFlowSchemas) Watch(ctx context.Context, _ metav1.ListOptions) (watch.Interface, error) {
	return quietWatch(ctx), nil
}

func (builtinFlowSchemas) ApplyStatus(_ context.Context, fs *flowcontrolapply.FlowSchemaApplyConfiguration, _ metav1.ApplyOptions) (*flowcontrolv1.FlowSchema, error) {
	return &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: *fs.Name}}, nil
}

type builtinPriorityLevels struct {
	flowcontrolclient.PriorityLevelConfigurationInterface
}

func (builtinPriorityLevels) List(context.Context, metav1.ListOptions) (*flowcontrolv1.PriorityLevelConfigurationList, error) {
	return &flowcontrolv1.PriorityLevelConfigurationList{
		ListMeta: metav1.ListMeta{ResourceVersion: builtinVersion},
		Items: builtinItems("prioritylevelconfigurations",
			bootstrap.MandatoryPriorityLevelConfigurations, bootstrap.SuggestedPriorityLevelConfigurations),
	}, nil
}

func (builtinPriorityLevels) Watch(ctx context.Context, _ metav1.ListOptions) (watch.Interface, error) {
	return quietWatch(ctx), nil
}

// builtinObject is a pointer to one of kube's built-in flowcontrol objects.
type builtinObject[T any] interface {
	*T
	metav1.Object
	DeepCopy() *T
}

// builtinItems copies kube's built-in objects of a resource, mandatory
// then suggested, with the resourceVersion and uid that every specd gives
// them: the bootstrap package's objects are shared, so they are copied
// before they are stamped.
func builtinItems[T any, P builtinObject[T]](resource string, sets ...[]P) []T {
	var items []T
	for _, set := range sets {
		for _, o := range set {
			c := P(o.DeepCopy())
			c.SetResourceVersion(builtinVersion)
			c.SetUID(builtinUID(resource, c.GetName()))
			items = append(items, *c)
		}
	}
	return items
}

// quietWatch is a watch with no events, open until ctx ends or it is
// stopped.
func quietWatch(ctx context.Context) watch.Interface {
	w := &quiet{events: make(chan watch.Event), stopped: make(chan struct{})}
	go func() {
		select {
		case <-ctx.Done():
		case <-w.stopped:
		}
		close(w.events)
	}()
	return w
}

type quiet struct {
	events  chan watch.Event
	stopped chan struct{}
	once    sync.Once
}

func (w *quiet) ResultChan() <-chan watch.Event { return w.events }
func (w *quiet) Stop()                          { w.once.Do(func() { close(w.stopped) }) }
