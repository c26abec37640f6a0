package cache

import (
	"context"
	"time"

	"github.com/robotsguard/robotsguard/internal/lru"
)

// A Store keeps encoded entries (see Entry.MarshalBinary) by key, to share
// them between processes or keep them across restarts: a disk, memcache or
// Redis backend. Implementations must be safe for concurrent use; a Store
// may forget entries at any time.
//
// Every call gets a context whose deadline bounds it, and should return
// when the context is done. The transport does not depend on it: it stops
// waiting for a call when the context ends, whether the call returns or
// not, and takes an error, a panic or a missing entry alike as "no entry".
// A Store is a cache in front of the origins, never a source of truth.
type Store interface {
	// Get returns the value stored under key. ok is false, with a nil
	// error, when there is none.
	Get(ctx context.Context, key string) (value []byte, ok bool, err error)

	// Set stores value under key for ttl, after which the Store should
	// forget it (the value is of no use then: ttl covers the time a copy
	// may stand in for an unreachable robots.txt). The Store may keep
	// value; the caller does not change it afterwards.
	Set(ctx context.Context, key string, value []byte, ttl time.Duration) error
}

// Key returns the key under which an entry for the resource at url
// ("https://example.com/robots.txt") is stored. Keys carry the version of
// the entry encoding, so that processes of different versions sharing a
// Store keep their entries apart instead of overwriting each other's.
func Key(url string) string { return keyPrefix + url }

const keyPrefix = "robotsguard/e2/"

// NewMemoryStore returns an in-memory Store bounded to maxBytes of keys and
// values, evicting entries not used recently and expired ones.
func NewMemoryStore(maxBytes int64) Store {
	return &memoryStore{c: lru.New(maxBytes, (*memoryValue).size, nil, (*memoryValue).is)}
}

// lruOverhead approximates the memory a value costs besides its bytes and
// its key's: the value and its map slot.
const lruOverhead = 128

type memoryStore struct {
	c   *lru.Cache[string, *memoryValue]
	now func() time.Time // nil: time.Now
}

type memoryValue struct {
	lru.Node[*memoryValue]
	key     string
	b       []byte
	expires time.Time
}

func (v *memoryValue) size() int64        { return int64(len(v.key)+len(v.b)) + lruOverhead }
func (v *memoryValue) is(key string) bool { return v.key == key }

func (m *memoryStore) time() time.Time {
	if m.now != nil {
		return m.now()
	}
	return time.Now()
}

func (m *memoryStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
	v, ok := m.c.Get(key)
	if !ok || !m.time().Before(v.expires) {
		return nil, false, nil
	}
	return v.b, true, nil
}

func (m *memoryStore) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if ttl <= 0 {
		m.c.Delete(key)
		return nil
	}
	m.c.Set(key, &memoryValue{key: key, b: value, expires: m.time().Add(ttl)})
	return nil
}

// A LegacyStore is a cache with the method set of
// github.com/gregjones/httpcache's Cache: its diskcache, leveldbcache,
// memcache and redis backends are LegacyStores.
type LegacyStore interface {
	Get(key string) (value []byte, ok bool)
	Set(key string, value []byte)
}

// FromLegacy adapts a LegacyStore (any github.com/gregjones/httpcache
// backend) to a Store. Its calls take no context and return no error: the
// transport still stops waiting for one when its context ends. It has no
// expiry either, so entries stay until the backend drops them; an entry
// past its use is ignored when read.
func FromLegacy(s LegacyStore) Store { return legacyStore{s} }

type legacyStore struct{ s LegacyStore }

func (l legacyStore) Get(ctx context.Context, key string) ([]byte, bool, error) {
	if err := ctx.Err(); err != nil {
		return nil, false, err
	}
	b, ok := l.s.Get(key)
	return b, ok, nil
}

func (l legacyStore) Set(ctx context.Context, key string, value []byte, ttl time.Duration) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	l.s.Set(key, value)
	return nil
}
