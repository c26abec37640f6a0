package robotsredis

import (
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestGiveBackBounded: while Redis is out of reach, the places kept to
// give back are bounded: the oldest go first past maxGiveBacks, and each
// goes once its lease has expired in Redis anyway.
func TestGiveBackBounded(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there: every call fails at once
	c := redis.NewClient(&redis.Options{Addr: addr, ContextTimeoutEnabled: true, MaxRetries: -1})
	defer c.Close()
	f := &Fleet{Client: c, Failures: 1, Cooldown: time.Hour}
	defer f.Close()
	f.init()

	later := time.Now().Add(time.Hour)
	for i := range 2 * maxGiveBacks {
		f.giveBack(giveBack{origin: "https://o.example", token: strconv.Itoa(i), until: later})
	}
	queued := func() []giveBack {
		f.giver.mu.Lock()
		defer f.giver.mu.Unlock()
		return append([]giveBack(nil), f.giver.queue...)
	}
	q := queued()
	if len(q) > maxGiveBacks {
		t.Fatalf("%d places kept to give back, want at most %d", len(q), maxGiveBacks)
	}
	if q[len(q)-1].token != strconv.Itoa(2*maxGiveBacks-1) || q[0].token == "0" {
		t.Errorf("kept %s to %s: the newest are kept, the oldest dropped", q[0].token, q[len(q)-1].token)
	}

	// Leases that have expired in Redis are not kept.
	past := time.Now().Add(-time.Second)
	f.giver.mu.Lock()
	for i := range f.giver.queue {
		f.giver.queue[i].until = past
	}
	f.giver.mu.Unlock()
	f.giveBack(giveBack{origin: "https://o.example", token: "last", until: later})
	if q := queued(); len(q) > 1 || len(q) == 1 && q[0].token != "last" {
		t.Errorf("%d places kept after all but one expired, want the one", len(q))
	}
}
