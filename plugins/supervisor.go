package plugins

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/specd-io/specd/plugins/events"
)

// The states of PluginHealth.State.
const (
	stateIdle       = "idle"
	stateRunning    = "running"
	stateRestarting = "restarting"
	stateFailed     = "failed"
)

// Restart backoff: doubling from backoffBase up to backoffMax, reset by a
// call that succeeds.
const (
	backoffBase = 100 * time.Millisecond
	backoffMax  = 30 * time.Second
)

func backoff(failures int) time.Duration {
	d := backoffBase
	for i := 1; i < failures && d < backoffMax; i++ {
		d *= 2
	}
	return min(d, backoffMax)
}

// proc supervises one plugin: at most one process runs, started by the
// first call (or by a restart after a death), and one start is in flight at
// a time, however many calls wait for it.
type proc struct {
	h          *Host
	name, path string
	failures   atomic.Int32 // deaths and failed starts since the last good call
	// events records the plugin's Events; it outlives each process, so
	// that a restarted plugin's repeats still count on the same Events.
	events *events.Recorder

	mu        sync.Mutex
	inst      *instance
	starting  *attempt
	state     string
	restarts  int
	nextStart time.Time // no start before
	lastErr   error
	everRan   bool // once it ran, a dead process is restarted in the background
	timer     *time.Timer
}

// attempt is one start; done is closed when inst or err is set.
type attempt struct {
	done chan struct{}
	inst *instance
	err  error
}

// get is the running instance, started if need be, and whether it waited
// for a start. It waits for a start in flight until the start ends or ctx
// is canceled (see attempt.wait), or for the restart backoff if it ends
// before ctx does.
func (p *proc) get(ctx context.Context) (*instance, bool, error) {
	for {
		p.mu.Lock()
		if p.h.closed.Load() {
			p.mu.Unlock()
			return nil, false, ErrClosed
		}
		if inst := p.inst; inst != nil {
			p.mu.Unlock()
			if !inst.exited() {
				return inst, false, nil
			}
			p.lost(inst, inst.exitError())
			continue
		}
		a := p.starting
		if a == nil {
			if wait := time.Until(p.nextStart); wait > 0 {
				lastErr := p.lastErr
				p.mu.Unlock()
				if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
					return nil, false, fmt.Errorf("%w (next start in %s): %v", ErrBackoff, wait.Round(time.Millisecond), lastErr)
				}
				select {
				case <-time.After(wait):
					continue
				case <-ctx.Done():
					return nil, false, ctx.Err()
				}
			}
			a = p.beginLocked()
		}
		p.mu.Unlock()
		inst, err := a.wait(ctx)
		return inst, true, err
	}
}

// wait waits for the start to end, or for ctx to be canceled. The end of
// ctx's deadline does not end the wait: a start has its own bound
// (startTimeout), and a call's deadline, a hook's timeoutSeconds, bounds
// the plugin's answer, not the start of its process.
func (a *attempt) wait(ctx context.Context) (*instance, error) {
	ctx, stop := withoutDeadline(ctx)
	defer stop()
	select {
	case <-a.done:
		return a.inst, a.err
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// withoutDeadline is ctx without its deadline: done when ctx is canceled,
// not when its deadline passes.
func withoutDeadline(ctx context.Context) (context.Context, context.CancelFunc) {
	out, cancel := context.WithCancelCause(context.WithoutCancel(ctx))
	stop := context.AfterFunc(ctx, func() {
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			cancel(ctx.Err())
		}
	})
	return out, func() { stop(); cancel(nil) }
}

// beginLocked starts the process in the background.
func (p *proc) beginLocked() *attempt {
	a := &attempt{done: make(chan struct{})}
	p.starting = a
	go func() {
		a.inst, a.err = p.started(p.h.startInstance(p.name, p.path, p.events))
		close(a.done)
	}()
	return a
}

// started records the outcome of a start.
func (p *proc) started(inst *instance, err error) (*instance, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.starting = nil
	if p.h.closed.Load() {
		if inst != nil {
			inst.kill()
		}
		return nil, ErrClosed
	}
	if err != nil {
		n := int(p.failures.Add(1))
		p.lastErr, p.nextStart, p.state = err, time.Now().Add(backoff(n)), stateFailed
		p.h.logger.Error("plugin did not start", "plugin", p.name, "error", err)
		if p.everRan {
			p.state = stateRestarting
			p.scheduleLocked(backoff(n))
		}
		return nil, err
	}
	if p.everRan {
		p.restarts++
		restartsTotal.WithLabelValues(p.name).Inc()
	}
	p.everRan, p.inst, p.state = true, inst, stateRunning
	pluginUp.WithLabelValues(p.name).Set(1)
	p.h.logger.Info("plugin started", "plugin", p.name, "pid", inst.cmd.Process.Pid)
	go inst.watch(func(cause error) { p.lost(inst, cause) })
	return inst, nil
}

// lost retires an instance that died, or that is killed now because it
// hung or broke its connection, and schedules its restart.
func (p *proc) lost(inst *instance, cause error) {
	inst.kill()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.inst != inst {
		return // already retired
	}
	p.inst = nil
	pluginUp.WithLabelValues(p.name).Set(0)
	if p.h.closed.Load() {
		return
	}
	wait := backoff(int(p.failures.Add(1)))
	p.lastErr, p.nextStart, p.state = cause, time.Now().Add(wait), stateRestarting
	p.h.logger.Warn("plugin process lost; restarting it", "plugin", p.name, "cause", cause.Error(), "after", wait)
	p.scheduleLocked(wait)
}

func (p *proc) scheduleLocked(wait time.Duration) {
	if p.timer != nil {
		p.timer.Stop()
	}
	p.timer = time.AfterFunc(wait, func() {
		p.mu.Lock()
		defer p.mu.Unlock()
		if p.h.closed.Load() || p.inst != nil || p.starting != nil {
			return
		}
		p.beginLocked()
	})
}

// ok records a good call: the next death starts the backoff afresh.
func (p *proc) ok() {
	if p.failures.Load() != 0 {
		p.failures.Store(0)
	}
}

func (p *proc) health() PluginHealth {
	p.mu.Lock()
	defer p.mu.Unlock()
	ph := PluginHealth{Name: p.name, Running: p.inst != nil, Restarts: p.restarts, State: p.state}
	if p.lastErr != nil {
		ph.LastError = p.lastErr.Error()
	}
	return ph
}

// shutdown stops restarts and hands over the running instance, if any.
func (p *proc) shutdown() *instance {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.timer != nil {
		p.timer.Stop()
	}
	inst := p.inst
	p.inst, p.state = nil, stateIdle
	pluginUp.WithLabelValues(p.name).Set(0)
	return inst
}
