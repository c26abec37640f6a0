package robotsredis

import (
	"context"
	"sync"

	"github.com/redis/go-redis/v9"
)

// releasedChannel is the Redis channel on which releases of fetch locks
// and pacing places are published, with the name of what was released.
// One channel for all: a process subscribes once, whatever the number of
// origins it waits on, and Redis Cluster broadcasts it to every node.
const releasedChannel = "robotsredis:released"

// notifier holds a Fleet's subscription to releasedChannel, started at the
// first wait, and hands each message to the waiters of its name.
type notifier struct {
	client redis.UniversalClient

	mu      sync.Mutex // guards the fields below
	ps      *redis.PubSub
	ready   chan struct{} // closed when the subscription under way is made, or failed
	started bool
	closed  bool
	waiters map[string]map[chan struct{}]struct{}
}

// watch registers a waiter for releases of name, and returns the channel
// that receives them and the function that unregisters it. It subscribes
// first when no subscription is under way, and waits for the subscription
// (within ctx) so that no release published after watch returns is missed.
// When the subscription cannot be made, the channel never receives: the
// waiter rereads the state itself.
func (n *notifier) watch(ctx context.Context, name string) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	n.mu.Lock()
	if n.waiters == nil {
		n.waiters = map[string]map[chan struct{}]struct{}{}
	}
	if n.waiters[name] == nil {
		n.waiters[name] = map[chan struct{}]struct{}{}
	}
	n.waiters[name][ch] = struct{}{}
	start := !n.started && !n.closed
	if start {
		n.started, n.ready = true, make(chan struct{})
	}
	ready := n.ready
	n.mu.Unlock()
	if start {
		n.subscribe(ctx)
		close(ready)
	} else if ready != nil {
		select { // another watch is subscribing: wait for it
		case <-ready:
		case <-ctx.Done():
		}
	}
	return ch, func() {
		n.mu.Lock()
		delete(n.waiters[name], ch)
		if len(n.waiters[name]) == 0 {
			delete(n.waiters, name)
		}
		n.mu.Unlock()
	}
}

// subscribe starts the subscription and the goroutine that dispatches its
// messages; go-redis reconnects it when its connection fails. On failure,
// the next watch tries again.
func (n *notifier) subscribe(ctx context.Context) {
	ps := n.client.Subscribe(context.WithoutCancel(ctx), releasedChannel)
	rctx, cancel := context.WithTimeout(ctx, DefaultCallTimeout)
	defer cancel()
	if _, err := ps.Receive(rctx); err != nil {
		ps.Close()
		n.mu.Lock()
		n.started = false
		n.mu.Unlock()
		return
	}
	n.mu.Lock()
	if n.closed {
		n.mu.Unlock()
		ps.Close()
		return
	}
	n.ps = ps
	n.mu.Unlock()
	go func() {
		for m := range ps.Channel() {
			n.mu.Lock()
			for ch := range n.waiters[m.Payload] {
				select {
				case ch <- struct{}{}:
				default:
				}
			}
			n.mu.Unlock()
		}
	}()
}

func (n *notifier) close() error {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.closed = true
	if n.ps == nil {
		return nil
	}
	err := n.ps.Close()
	n.ps = nil
	return err
}
