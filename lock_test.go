package robotsguard_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/cache"
	"github.com/robotsguard/robotsguard/robotstest"
)

// lockStore is a fakeStore that is also a cache.Locker, in memory: what a
// shared Store does for a fleet of processes, here Transports.
type lockStore struct {
	*fakeStore
	lmu      sync.Mutex
	locks    map[string]*heldLock
	n        int
	waits    chan string // receives the key of every Wait that blocks, when not nil
	lockErr  error       // every TryLock fails with it
	neverOwn bool        // every TryLock finds the lock held, and Wait blocks
}

type heldLock struct {
	token    string
	released chan struct{}
}

func newLockStore() *lockStore {
	return &lockStore{fakeStore: newFakeStore(), locks: map[string]*heldLock{}}
}

func (l *lockStore) TryLock(ctx context.Context, key string, ttl time.Duration) (string, bool, error) {
	l.lmu.Lock()
	defer l.lmu.Unlock()
	if l.lockErr != nil {
		return "", false, l.lockErr
	}
	if l.neverOwn || l.locks[key] != nil {
		return "", false, nil
	}
	l.n++
	h := &heldLock{token: strconv.Itoa(l.n), released: make(chan struct{})}
	l.locks[key] = h
	return h.token, true, nil
}

func (l *lockStore) Unlock(ctx context.Context, key, token string) error {
	l.lmu.Lock()
	defer l.lmu.Unlock()
	if h := l.locks[key]; h != nil && h.token == token {
		delete(l.locks, key)
		close(h.released)
	}
	return nil
}

func (l *lockStore) Wait(ctx context.Context, key string) error {
	l.lmu.Lock()
	h := l.locks[key]
	never := l.neverOwn
	l.lmu.Unlock()
	if h == nil && !never {
		return nil
	}
	if l.waits != nil {
		l.waits <- key
	}
	released := make(chan struct{})
	if h != nil {
		released = h.released
	}
	select {
	case <-released:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// TestLockerOneFetch: Transports sharing a Locker (processes of a fleet)
// fetch a cold robots.txt once: one takes the lock and fetches, the others
// wait for its entry.
func TestLockerOneFetch(t *testing.T) {
	const n = 6
	gate := make(chan struct{})
	store := newLockStore()
	store.waits = make(chan string, n)
	type results struct{ page, private error }
	errs := make(chan results, n)
	var tops []*harness
	for range n {
		tops = append(tops, newHarness(t, func(tr *robotsguard.Transport) { tr.Store = store }))
	}
	s := tops[0].origin("User-agent: *\nDisallow: /private\n") // no clock moves
	s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		<-gate
		io.WriteString(w, "User-agent: *\nDisallow: /private\n")
	}))
	for _, h := range tops {
		go func() {
			var r results
			_, r.page = h.get(s.URL + "/page")
			_, r.private = h.get(s.URL + "/private/x")
			errs <- r
		}()
	}
	for range n - 1 { // all but the holder wait for it
		<-store.waits
	}
	close(gate)
	for range n {
		r := <-errs
		if r.page != nil {
			t.Fatalf("allowed page: %v", r.page)
		}
		if !errors.Is(r.private, robotsguard.ErrDisallowed) {
			t.Fatalf("disallowed page: %v, want ErrDisallowed", r.private)
		}
	}
	if got := count(s, "/robots.txt"); got != 1 {
		t.Errorf("%d robots.txt fetches for %d Transports, want 1", got, n)
	}
	if got := count(s, "/private/x"); got != 0 {
		t.Errorf("%d disallowed requests received", got)
	}
}

// TestLockerHolderSilent: a lock whose holder never delivers (it died, or
// hangs) costs a quarter of FetchTimeout, then the Transport fetches the
// file itself; it does not fail open.
func TestLockerHolderSilent(t *testing.T) {
	store := newLockStore()
	store.neverOwn = true
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.Store = store; tr.FetchTimeout = 200 * time.Millisecond })
	s := h.origin("User-agent: *\nDisallow: /private\n")
	h.allowed(s.URL + "/page")
	h.refused(s.URL+"/private/x", robotsguard.ReasonRule)
	if got := count(s, "/robots.txt"); got != 1 {
		t.Errorf("%d robots.txt fetches, want 1", got)
	}
}

// TestLockerFails: a Locker that fails costs a fetch, counted as a Store
// error, never a refused request sent.
func TestLockerFails(t *testing.T) {
	store := newLockStore()
	store.lockErr = errors.New("lock service down")
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.Store = store })
	s := h.origin("User-agent: *\nDisallow: /private\n")
	h.allowed(s.URL + "/page")
	h.refused(s.URL+"/private/x", robotsguard.ReasonRule)
	if got := count(s, "/robots.txt"); got != 1 {
		t.Errorf("%d robots.txt fetches, want 1", got)
	}
	if got := h.tr.Stats().StoreErrors; got != 1 {
		t.Errorf("Stats.StoreErrors = %d, want 1", got)
	}
	if store.get(cache.Key(s.URL+"/robots.txt")) == nil {
		t.Error("the fetched entry was not stored")
	}
}
