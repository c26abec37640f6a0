package robotsguard_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/cache"
	"github.com/robotsguard/robotsguard/robotstest"
)

// fakeStore is a Store whose calls can fail, hang or panic, and that
// records the lifetimes it is given.
type fakeStore struct {
	mu      sync.Mutex
	m       map[string][]byte
	ttls    map[string]time.Duration
	getErr  error
	hang    chan struct{} // when not nil, every call waits for it to close
	panics  bool
	getKeys []string
}

func newFakeStore() *fakeStore {
	return &fakeStore{m: map[string][]byte{}, ttls: map[string]time.Duration{}}
}

func (f *fakeStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
	f.mu.Lock()
	hang, panics, err := f.hang, f.panics, f.getErr
	f.getKeys = append(f.getKeys, key)
	f.mu.Unlock()
	if hang != nil {
		<-hang // ignores ctx, as a badly written Store would
	}
	if panics {
		panic("store exploded")
	}
	if err != nil {
		return nil, false, err
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.m[key]
	return v, ok, nil
}

func (f *fakeStore) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	f.mu.Lock()
	hang, panics := f.hang, f.panics
	f.mu.Unlock()
	if hang != nil {
		<-hang
	}
	if panics {
		panic("store exploded")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.m[key], f.ttls[key] = value, ttl
	return nil
}

func (f *fakeStore) get(key string) []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.m[key]
}

// TestStoreCorruptEntry: an entry that does not decode is skipped and left
// in place (another process may read it), and the robots.txt is fetched.
func TestStoreCorruptEntry(t *testing.T) {
	store := newFakeStore()
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.Store = store })
	s := h.origin("User-agent: *\nDisallow: /no\n")
	key := cache.Key(s.URL + "/robots.txt")
	store.m[key] = []byte("RG\x02garbage")
	h.refused(s.URL+"/no", robotsguard.ReasonRule)
	if n := count(s, "/robots.txt"); n != 1 {
		t.Errorf("robots.txt fetched %d times", n)
	}
	var e cache.Entry
	if err := e.UnmarshalBinary(store.get(key)); err != nil || e.Status != 200 {
		t.Errorf("the fetched entry was not stored over the corrupt one: %v", err)
	}
}

// TestStoreOtherVersion: during a rolling upgrade, processes of two
// versions share a Store: neither deletes nor overwrites the other's
// entries.
func TestStoreOtherVersion(t *testing.T) {
	store := newFakeStore()
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.Store = store })
	s := h.origin("User-agent: *\nDisallow: /no\n")
	// What an older version wrote, under the key it used, and a newer
	// version's entry under ours.
	old := []byte("RG\x01whatever it encoded")
	store.m[s.URL] = old
	e := &cache.Entry{Status: 200, Body: []byte("User-agent: *\nDisallow: /\n")}
	b, _ := e.MarshalBinary()
	b[2] = 99
	key := cache.Key(s.URL + "/robots.txt")
	store.m[key] = bytes.Clone(b)
	h.allowed(s.URL + "/yes") // the newer entry is not read: fetched
	if n := count(s, "/robots.txt"); n != 1 {
		t.Errorf("robots.txt fetched %d times, want 1", n)
	}
	if !bytes.Equal(store.get(s.URL), old) {
		t.Error("the older version's entry was changed")
	}
}

// TestStoreLifetime: entries are written with a lifetime that covers the
// time a copy may stand in for an unreachable robots.txt.
func TestStoreLifetime(t *testing.T) {
	store := newFakeStore()
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.Store = store })
	s := h.origin("User-agent: *\nDisallow: /no\n")
	s.Fault("/robots.txt", robotstest.Status(200, "Cache-Control: max-age=60"))
	h.allowed(s.URL + "/yes")
	ttl := store.ttls[cache.Key(s.URL+"/robots.txt")]
	if ttl < cache.DefaultStaleLimit-time.Minute || ttl > cache.DefaultStaleLimit+48*time.Hour {
		t.Errorf("entry stored for %v, want about the 30-day stale limit", ttl)
	}
}

// TestStoreHangs: a Store call that never returns (and ignores its
// context) holds an origin for FetchTimeout at most, and leaves the
// robots.txt fetch time to succeed: requests go on.
func TestStoreHangs(t *testing.T) {
	store := newFakeStore()
	store.hang = make(chan struct{})
	t.Cleanup(func() { close(store.hang) })
	h := newHarness(t, func(tr *robotsguard.Transport) {
		tr.Store = store
		tr.FetchTimeout = 4 * time.Second // a quarter for the Get, the rest for the fetch, even on a busy machine under the race detector
	})
	s := h.origin("User-agent: *\nDisallow: /no\n")
	done := make(chan error, 1)
	go func() {
		_, err := h.get(s.URL + "/yes")
		done <- err
	}()
	select {
	case err := <-done:
		// The Get takes a quarter of the fetch's budget; the fetch
		// has the rest.
		if err != nil {
			t.Fatalf("GET /yes: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("a hanging Store held the request for a minute")
	}
	if st := h.tr.Stats(); st.StoreErrors == 0 {
		t.Errorf("Stats %+v: want the Store's time-out counted", st)
	}
	h.refused(s.URL+"/no", robotsguard.ReasonRule)
	if n := count(s, "/no"); n != 0 {
		t.Errorf("origin got %d disallowed requests", n)
	}
}

// TestStoreFailsOrPanics: a Store that fails or panics costs a fetch, and
// nothing else.
func TestStoreFailsOrPanics(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(*fakeStore)
	}{
		{"error", func(f *fakeStore) { f.getErr = errors.New("connection refused") }},
		{"panic", func(f *fakeStore) { f.panics = true }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := newFakeStore()
			tc.setup(store)
			h := newHarness(t, func(tr *robotsguard.Transport) { tr.Store = store })
			s := h.origin("User-agent: *\nDisallow: /no\n")
			h.allowed(s.URL + "/yes")
			h.refused(s.URL+"/no", robotsguard.ReasonRule)
			if n := count(s, "/robots.txt"); n != 1 {
				t.Errorf("robots.txt fetched %d times, want 1", n)
			}
			if st := h.tr.Stats(); st.StoreErrors == 0 {
				t.Errorf("Stats %+v: want the Store's failures counted", st)
			}
		})
	}
}

// TestLegacyStore: an httpcache-style store, adapted, shares entries.
func TestLegacyStore(t *testing.T) {
	legacy := &mapLegacy{m: map[string][]byte{}}
	h1 := newHarness(t, func(tr *robotsguard.Transport) { tr.Store = cache.FromLegacy(legacy) })
	h2 := newHarness(t, func(tr *robotsguard.Transport) { tr.Store = cache.FromLegacy(legacy) })
	s := h1.origin("User-agent: *\nDisallow: /no\n")
	h1.allowed(s.URL + "/yes")
	h2.refused(s.URL+"/no", robotsguard.ReasonRule)
	if n := count(s, "/robots.txt"); n != 1 {
		t.Errorf("robots.txt fetched %d times, want 1", n)
	}
}

type mapLegacy struct {
	mu sync.Mutex
	m  map[string][]byte
}

func (l *mapLegacy) Get(k string) ([]byte, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	v, ok := l.m[k]
	return v, ok
}

func (l *mapLegacy) Set(k string, v []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.m[k] = v
}

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

// TestStoreShared: a second Transport sharing the Store uses the robots.txt
// the first fetched, without fetching it.
func TestStoreShared(t *testing.T) {
	store := cache.NewMemoryStore(1 << 20)
	h1 := newHarness(t, func(tr *robotsguard.Transport) { tr.Store = store })
	h2 := newHarness(t, func(tr *robotsguard.Transport) { tr.Store = store })
	s := h2.origin("User-agent: *\nDisallow: /no\n") // on h2's clock, which its second fetch is read by
	s.Fault("/robots.txt", robotstest.Status(200, "Cache-Control: max-age=3600"))
	h1.allowed(s.URL + "/yes")
	h2.refused(s.URL+"/no", robotsguard.ReasonRule)
	if n := count(s, "/robots.txt"); n != 1 {
		t.Errorf("robots.txt fetched %d times, want once for both transports", n)
	}
	// Past its freshness, the second revalidates it.
	h2.clock.Advance(2 * time.Hour)
	h2.refused(s.URL+"/no", robotsguard.ReasonRule)
	if n := count(s, "/robots.txt"); n != 2 {
		t.Errorf("robots.txt fetched %d times, want a second fetch once stale", n)
	}
}

// TestStoreFresherEntry: a Transport whose copy is stale takes a fresher
// one from the Store, stored by another Transport, instead of fetching.
func TestStoreFresherEntry(t *testing.T) {
	store := cache.NewMemoryStore(1 << 20)
	h1 := newHarness(t, func(tr *robotsguard.Transport) { tr.Store = store })
	h2 := newHarness(t, func(tr *robotsguard.Transport) { tr.Store = store })
	s := h1.origin("User-agent: *\nDisallow: /no\n") // on h1's clock: h1 fetches
	s.Fault("/robots.txt", robotstest.Status(200, "Cache-Control: max-age=3600"))
	h1.allowed(s.URL + "/a") // fetch 1, shared
	h2.allowed(s.URL + "/a") // from the store
	h1.clock.Advance(61 * time.Minute)
	h1.allowed(s.URL + "/b") // fetch 2, shared
	h2.clock.Advance(61 * time.Minute)
	h2.allowed(s.URL + "/b") // stale in memory, fresh in the store
	if n := count(s, "/robots.txt"); n != 2 {
		t.Errorf("robots.txt fetched %d times, want 2", n)
	}
}

// TestStoreEntryFromTheFuture: an entry received further ahead of the
// clock than fleet clocks differ is ignored; one a little ahead counts as
// received now.
func TestStoreEntryFromTheFuture(t *testing.T) {
	store := cache.NewMemoryStore(1 << 20)
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.Store = store })
	h2 := newHarness(t, func(tr *robotsguard.Transport) { tr.Store = store })
	s := h2.origin("User-agent: *\nDisallow: /no\n") // on h2's clock, which its fetch is read by
	put := func(ahead time.Duration) {
		at := h.clock.Now().Add(ahead)
		e := &cache.Entry{Status: 200, Body: []byte("User-agent: *\nDisallow: /\n"),
			Header: http.Header{"Cache-Control": {"max-age=60"}}, Requested: at, Received: at}
		b, _ := e.MarshalBinary()
		store.Set(context.Background(), cache.Key(s.URL+"/robots.txt"), b, time.Hour)
	}
	put(365 * 24 * time.Hour)
	h.allowed(s.URL + "/a") // the real file, fetched
	if n := count(s, "/robots.txt"); n != 1 {
		t.Fatalf("robots.txt fetched %d times, want the year-ahead entry ignored", n)
	}
	put(30 * time.Second)
	h2.refused(s.URL+"/a", robotsguard.ReasonRule) // the stored copy, fresh a minute after its receipt
	h2.clock.Advance(91 * time.Second)
	h2.allowed(s.URL + "/a")
	if n := count(s, "/robots.txt"); n != 2 {
		t.Errorf("robots.txt fetched %d times, want a second fetch once the stored copy is stale", n)
	}
}

// TestStoreRevalidatedEntryWhole: an entry revalidated with a 304 goes back
// to the Store with its body: another Transport that takes it from there
// obeys its rules without fetching the file.
func TestStoreRevalidatedEntryWhole(t *testing.T) {
	store := cache.NewMemoryStore(1 << 20)
	h1 := newHarness(t, func(tr *robotsguard.Transport) { tr.Store = store })
	s := h1.origin("") // on h1's clock: h1 fetches
	s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("If-None-Match") == `"v1"` {
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("Cache-Control", "max-age=600")
		io.WriteString(w, "User-agent: *\nDisallow: /private\n")
	}))
	h1.refused(s.URL+"/private", robotsguard.ReasonRule)
	h1.clock.Advance(11 * time.Minute)
	h1.refused(s.URL+"/private", robotsguard.ReasonRule) // revalidated: 304
	h2 := newHarness(t, func(tr *robotsguard.Transport) { tr.Store = store })
	h2.clock.Advance(12 * time.Minute)
	h2.refused(s.URL+"/private", robotsguard.ReasonRule)
	if n := count(s, "/robots.txt"); n != 2 {
		t.Errorf("robots.txt requested %d times, want 2 (a fetch and a revalidation)", n)
	}
}

// TestHangingStoreBounded: a Store whose calls never return costs a
// bounded number of goroutines, however many origins are crawled.
func TestHangingStoreBounded(t *testing.T) {
	store := newFakeStore()
	store.hang = make(chan struct{})
	before := runtime.NumGoroutine()
	h := newHarness(t, func(tr *robotsguard.Transport) {
		tr.Store = store
		tr.FetchTimeout = 20 * time.Millisecond
		tr.Base = staticRoundTripper{"User-agent: *\nDisallow: /no\n"}
		// One fetch at a time: the goroutines counted are the Store's,
		// not fetches still under way on a loaded machine (up to two
		// each, for PrefetchConcurrency of them).
		tr.PrefetchConcurrency = 1
	})
	var origins []string
	for i := range 300 {
		origins = append(origins, fmt.Sprintf("http://site%d.example", i))
	}
	if err := h.tr.Prefetch(context.Background(), origins...); err != nil {
		t.Fatal(err)
	}
	if n := runtime.NumGoroutine() - before; n > 64+16 {
		t.Errorf("%d goroutines more after 300 origins with a hanging Store", n)
	}
	h.refused("http://site299.example/no", robotsguard.ReasonRule)
	close(store.hang)
}

// TestStoredFailureHonoured: a failure another process stored, with its
// back-off, holds this process's fetches back too.
func TestStoredFailureHonoured(t *testing.T) {
	store := cache.NewMemoryStore(1 << 20)
	h1 := newHarness(t, func(tr *robotsguard.Transport) { tr.Store = store; tr.RetryMax = -1 })
	s := h1.origin("") // a failure's Date is not read: h2 may fetch from it too
	s.Fault("/robots.txt", robotstest.Status(503))
	h1.refused(s.URL+"/page", robotsguard.ReasonUnreachable)
	h2 := newHarness(t, func(tr *robotsguard.Transport) { tr.Store = store; tr.RetryMax = -1 })
	d := h2.refused(s.URL+"/page", robotsguard.ReasonUnreachable)
	if !strings.Contains(d.Error(), "503") {
		t.Errorf("refusal %v does not say why", d)
	}
	if n := count(s, "/robots.txt"); n != 1 {
		t.Errorf("robots.txt fetched %d times, want once: the second process backs off too", n)
	}
	h2.clock.Advance(2 * time.Minute)
	h2.refused(s.URL+"/page", robotsguard.ReasonUnreachable)
	if n := count(s, "/robots.txt"); n != 2 {
		t.Errorf("robots.txt fetched %d times, want again after the back-off", n)
	}
}

// TestStoredSuccessOverFailure: a process whose fetch fails while another
// stores a newer success uses that success.
func TestStoredSuccessOverFailure(t *testing.T) {
	store := cache.NewMemoryStore(1 << 20)
	h := newHarness(t, func(tr *robotsguard.Transport) { tr.Store = store; tr.RetryMax = -1 })
	s := newOrigin(overruled{t}, h.clock, "", nil) // it sees no other process's fetch
	s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		// Another process's fetch succeeds meanwhile, and stores it.
		now := h.clock.Now()
		e := &cache.Entry{Status: 200, Body: []byte("User-agent: *\nDisallow: /no\n"), Requested: now, Received: now}
		b, _ := e.MarshalBinary()
		store.Set(r.Context(), cache.Key(s.URL+"/robots.txt"), b, time.Hour)
		w.WriteHeader(http.StatusBadGateway)
	}))
	h.refused(s.URL+"/no", robotsguard.ReasonRule)
	h.allowed(s.URL + "/yes")
	if n := count(s, "/robots.txt"); n != 1 {
		t.Errorf("robots.txt fetched %d times", n)
	}
	if got := uris(s.Disallowed()); !slices.Equal(got, []string{"/yes"}) {
		t.Errorf("the Origin disallows %q of what it got, want only /yes, which the stored file allows", got)
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
	var logged bytes.Buffer
	h := newHarness(t, func(tr *robotsguard.Transport) {
		tr.Store = store
		tr.FetchTimeout = 200 * time.Millisecond
		tr.Logger = slog.New(slog.NewTextHandler(&logged, nil))
	})
	s := h.origin("User-agent: *\nDisallow: /private\n")
	h.allowed(s.URL + "/page")
	h.refused(s.URL+"/private/x", robotsguard.ReasonRule)
	if got := count(s, "/robots.txt"); got != 1 {
		t.Errorf("%d robots.txt fetches, want 1", got)
	}
	// An operator sees why the fleet fetched twice.
	if want := "another process's fetch outlasted the wait for it; fetching"; !strings.Contains(logged.String(), want) {
		t.Errorf("logged %q, want a line that says %q", logged.String(), want)
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

// TestLockerStaleStandsIn: when another process of the fleet revalidates a
// stale robots.txt, a Transport decides by its stale copy at once, rather
// than wait for that fetch (stale-while-revalidate across the fleet), and
// takes the new rules from the Store once they are there. Before, it
// waited on the lock for up to a quarter of FetchTimeout.
func TestLockerStaleStandsIn(t *testing.T) {
	store := newLockStore()
	store.waits = make(chan string, 4)
	h1 := newHarness(t, func(tr *robotsguard.Transport) { tr.Store = store })
	h2 := newHarness(t, func(tr *robotsguard.Transport) { tr.Store = store })
	s := h1.origin("User-agent: *\nDisallow: /no\n") // on h1's clock: h1 fetches
	var fetches atomic.Int32
	started, gate := make(chan struct{}), make(chan struct{})
	s.Fault("/robots.txt", robotstest.Handler(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "max-age=3600")
		if fetches.Add(1) == 1 {
			io.WriteString(w, "User-agent: *\nDisallow: /no\n")
			return
		}
		close(started)
		<-gate // the revalidation: the file now disallows /b too
		io.WriteString(w, "User-agent: *\nDisallow: /no\nDisallow: /b\n")
	}))
	var once sync.Once
	release := func() { once.Do(func() { close(gate) }) }
	t.Cleanup(release)       // before the origin closes, which waits for its handlers
	h1.allowed(s.URL + "/a") // fetch 1, stored
	h2.allowed(s.URL + "/a") // from the Store
	// Both copies are stale by a second: the revalidation is due.
	h1.clock.Advance(time.Hour + time.Second)
	h2.clock.Advance(time.Hour + time.Second)

	revalidated := make(chan error, 1)
	go func() { _, err := h1.get(s.URL + "/c"); revalidated <- err }() // takes the lock, fetches
	<-started                                                          // h1 holds the lock, and its fetch reached the origin
	served := make(chan error, 1)
	go func() { _, err := h2.get(s.URL + "/b"); served <- err }()
	select {
	case err := <-served:
		if err != nil {
			t.Errorf("while another process revalidates: %v, want /b allowed by the stale copy", err)
		}
	case <-store.waits:
		t.Fatal("the second Transport waits for the revalidation instead of deciding by its stale copy")
	}
	release()
	if err := <-revalidated; err != nil {
		t.Fatalf("the revalidating Transport: %v", err)
	}
	// The copy stands in for a moment; then the new rules come from the
	// Store, not from a fetch.
	h2.allowed(s.URL + "/d") // the copy stands in for a second
	h2.clock.Advance(time.Second)
	h2.refused(s.URL+"/b", robotsguard.ReasonRule)
	if n := fetches.Load(); n != 2 {
		t.Errorf("robots.txt fetched %d times, want 2 (the second by the process that revalidated)", n)
	}
}
