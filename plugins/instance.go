package plugins

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"

	plugin "github.com/hashicorp/go-plugin"
	"google.golang.org/grpc"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/specd-io/specd/plugins/events"
	"github.com/specd-io/specd/plugins/hook"
	"github.com/specd-io/specd/plugins/identity"
	pluginv1 "github.com/specd-io/specd/plugins/proto/specd/plugin/v1"
)

const (
	// startTimeout bounds a start: the handshake line, then Describe.
	startTimeout = 10 * time.Second
	// exitPoll is how often a running instance is checked for having
	// exited; go-plugin offers no channel for it.
	exitPoll = 100 * time.Millisecond
)

// instance is one running process of a plugin.
type instance struct {
	client *plugin.Client
	cmd    *exec.Cmd
	rpc    pluginv1.PluginClient
	kinds  []hook.KindHooks
	exit   *exitNote

	stop     chan struct{} // closed by kill
	killOnce sync.Once
	killed   chan struct{} // closed once go-plugin has cleaned up after kill
}

// exitNote keeps go-plugin's report of how the process ended ("exit status
// 2", "signal: killed"), which it gives only to its logger.
type exitNote struct {
	mu  sync.Mutex
	msg string
}

func (n *exitNote) set(msg string) { n.mu.Lock(); n.msg = msg; n.mu.Unlock() }
func (n *exitNote) get() string    { n.mu.Lock(); defer n.mu.Unlock(); return n.msg }

// dispensed is what the host side of go-plugin's plugin hands out.
type dispensed struct {
	rpc      pluginv1.PluginClient
	brokerID uint32
}

// hostPlugin is the host side of go-plugin's plugin: it opens the Plugin
// client and serves the Host service on a broker id that Describe passes
// on.
type hostPlugin struct {
	plugin.NetRPCUnsupportedPlugin
	cb   hook.Callbacks
	user user.Info // the plugin's own, on every callback
	rec  *events.Recorder
}

func (p *hostPlugin) GRPCServer(*plugin.GRPCBroker, *grpc.Server) error {
	return errors.New("plugins: the host does not serve plugins")
}

func (p *hostPlugin) GRPCClient(_ context.Context, broker *plugin.GRPCBroker, conn *grpc.ClientConn) (any, error) {
	id := broker.NextId()
	go broker.AcceptAndServe(id, func(opts []grpc.ServerOption) *grpc.Server {
		s := grpc.NewServer(append(opts, pluginv1.ServerOptions()...)...)
		pluginv1.RegisterHostServer(s, &hostService{cb: p.cb, user: p.user, rec: p.rec})
		return s
	})
	return &dispensed{rpc: pluginv1.NewPluginClient(conn), brokerID: id}, nil
}

// startInstance starts the plugin's process, shakes hands and asks it what
// it handles.
func (h *Host) startInstance(name, path string, rec *events.Recorder) (*instance, error) {
	cmd := exec.Command(path)
	dieWithHost(cmd)
	logger := h.logger.With("plugin", name)
	note := &exitNote{}
	client := plugin.NewClient(&plugin.ClientConfig{
		HandshakeConfig:  pluginv1.Handshake,
		Plugins:          plugin.PluginSet{pluginv1.PluginName: &hostPlugin{cb: h.cfg.Callbacks, user: identity.User(name), rec: rec}},
		Cmd:              cmd,
		AllowedProtocols: []plugin.Protocol{plugin.ProtocolGRPC},
		Logger:           &hclogger{l: logger, exit: note.set},
		Stderr:           &stderrLog{logger: logger},
		// go-plugin hands os.Stdout and os.Stderr of a Go plugin to these
		// writers (the process's real stderr, with panics, goes to Stderr).
		SyncStdout:      &stderrLog{logger: logger.With("stream", "stdout")},
		SyncStderr:      &stderrLog{logger: logger},
		StartTimeout:    startTimeout,
		GRPCDialOptions: pluginv1.DialOptions(),
	})
	inst := &instance{client: client, cmd: cmd, exit: note, stop: make(chan struct{}), killed: make(chan struct{})}
	if err := inst.connect(name); err != nil {
		inst.kill()
		return nil, err
	}
	return inst, nil
}

func (i *instance) connect(name string) error {
	proto, err := i.client.Client()
	if err != nil {
		return startError(name, err)
	}
	raw, err := proto.Dispense(pluginv1.PluginName)
	if err != nil {
		return fmt.Errorf("start: %w", err)
	}
	d, ok := raw.(*dispensed)
	if !ok {
		return fmt.Errorf("start: go-plugin dispensed a %T", raw)
	}
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	resp, err := d.rpc.Describe(ctx, &pluginv1.DescribeRequest{HostBrokerId: d.brokerID})
	if err != nil {
		return fmt.Errorf("start: describe: %w", err)
	}
	i.rpc = d.rpc
	for _, k := range resp.GetKinds() {
		i.kinds = append(i.kinds, hook.KindHooks{
			Group: k.GetGroup(), Kind: k.GetKind(),
			Default: k.GetDefault(), Validate: k.GetValidate(), Reconcile: k.GetReconcile(),
			Finalizer: k.GetFinalizer(),
		})
	}
	return nil
}

var pluginVersionRE = regexp.MustCompile(`incompatible API version with plugin\. Plugin version: (\d+)`)

// startError explains a failed start, a protocol version mismatch above
// all: go-plugin's own message names neither the plugin nor the fix.
func startError(name string, err error) error {
	if m := pluginVersionRE.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Errorf("%w: the plugin speaks version %s, this specd speaks version %d; rebuild %s with this specd's plugins/sdk",
			ErrVersion, m[1], pluginv1.ProtocolVersion, name)
	}
	msg := strings.TrimSpace(err.Error())
	return fmt.Errorf("start: %s", msg)
}

// exited reports whether the process is gone.
func (i *instance) exited() bool { return i.client.Exited() }

// watch calls gone once when the process exits by itself.
func (i *instance) watch(gone func(error)) {
	t := time.NewTicker(exitPoll)
	defer t.Stop()
	for {
		select {
		case <-i.stop:
			return
		case <-t.C:
			if i.exited() {
				gone(i.exitError())
				return
			}
		}
	}
}

func (i *instance) exitError() error {
	if msg := i.exit.get(); msg != "" {
		return fmt.Errorf("%w: %s", ErrCrashed, msg)
	}
	return ErrCrashed
}

// kill kills the process at once (a hung plugin gets no graceful
// shutdown) and lets go-plugin clean up in the background; killed is
// closed when it has.
func (i *instance) kill() {
	i.killOnce.Do(func() {
		close(i.stop)
		if i.cmd.Process != nil {
			_ = i.cmd.Process.Kill()
		}
		go func() {
			i.client.Kill()
			close(i.killed)
		}()
	})
}
