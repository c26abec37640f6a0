package robotsredis

import (
	"slices"
)

// Rendezvous assigns origins to workers by rendezvous (highest random
// weight) hashing: each origin goes to the worker whose hash with it is
// highest. When a worker joins, it takes about 1/n of the origins, each
// from the worker that had it; when one leaves, only its origins move, each
// to the worker that ranked second. A fleet that routes URLs to workers by
// origin this way keeps each origin's pace in one process, and needs Redis
// only for the shared robots.txt cache.
//
// Every process must list the same workers (in any order) to agree on the
// assignment. The zero Rendezvous assigns nothing; a Rendezvous is safe
// for concurrent use and is not changed by its methods.
type Rendezvous struct {
	workers []string
}

// NewRendezvous returns a Rendezvous over the named workers; duplicate
// names count once.
func NewRendezvous(workers ...string) *Rendezvous {
	w := slices.Clone(workers)
	slices.Sort(w)
	return &Rendezvous{workers: slices.Compact(w)}
}

// Workers returns the workers, sorted.
func (r *Rendezvous) Workers() []string { return slices.Clone(r.workers) }

// Owner returns the worker assigned to origin ("https://example.com"), or
// "" when there are no workers.
func (r *Rendezvous) Owner(origin string) string {
	best, top := "", uint64(0)
	for _, w := range r.workers {
		if s := score(w, origin); best == "" || s > top || s == top && w < best {
			best, top = w, s
		}
	}
	return best
}

// score is the weight of worker w for origin o: a 64-bit hash of both,
// mixed so that workers with similar names do not rank alike.
func score(w, o string) uint64 {
	h := fnv64(w)
	h ^= fnv64(o) * 0x9e3779b97f4a7c15
	// splitmix64's finaliser
	h ^= h >> 30
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 27
	h *= 0x94d049bb133111eb
	h ^= h >> 31
	return h
}

// fnv64 is FNV-1a: stable across processes, versions and platforms.
func fnv64(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}
