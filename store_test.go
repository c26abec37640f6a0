package robotsguard_test

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"sync"
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

var _ http.RoundTripper = (*robotsguard.Transport)(nil)
