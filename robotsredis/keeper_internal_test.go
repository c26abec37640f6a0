package robotsredis

import (
	"strconv"
	"testing"
	"time"
)

// TestGiveBackBounded: the places kept to give back while Redis is out of
// reach are bounded: past maxGiveBacks, the one whose lease expires first
// goes, and those whose leases have expired in Redis anyway go first. A
// release finds no room rather than push one out: its caller makes it.
func TestGiveBackBounded(t *testing.T) {
	f := &Fleet{}
	f.init()
	f.keeper.running = true // no goroutine: the queue alone
	defer func() {
		f.keeper.mu.Lock()
		f.keeper.running = false
		f.keeper.mu.Unlock()
	}()
	queued := func() (n int, tokens map[string]bool) {
		f.keeper.mu.Lock()
		defer f.keeper.mu.Unlock()
		tokens = map[string]bool{}
		for _, q := range f.keeper.pending {
			for _, b := range q {
				tokens[b.token] = true
			}
		}
		return f.keeper.n, tokens
	}

	later := time.Now().Add(time.Hour)
	for i := range 2 * maxGiveBacks {
		o := "https://o" + strconv.Itoa(i%7) + ".example"
		f.giveBack(giveBack{origin: o, token: strconv.Itoa(i), until: later.Add(time.Duration(i) * time.Millisecond)})
	}
	n, tokens := queued()
	if n != maxGiveBacks || len(tokens) != n {
		t.Fatalf("%d places kept to give back (%d tokens), want %d", n, len(tokens), maxGiveBacks)
	}
	for i := range 2 * maxGiveBacks {
		if kept, want := tokens[strconv.Itoa(i)], i >= maxGiveBacks; kept != want {
			t.Fatalf("token %d kept: %v; want those that expire last kept", i, kept)
		}
	}
	if f.queue(giveBack{origin: "https://o.example", token: "release", until: later.Add(time.Hour)}, false) {
		t.Error("a release was queued into a full queue")
	}

	// Leases that have expired in Redis are not kept.
	past := time.Now().Add(-time.Second)
	f.keeper.mu.Lock()
	for _, q := range f.keeper.pending {
		for i := range q {
			q[i].until = past
		}
	}
	f.keeper.mu.Unlock()
	f.giveBack(giveBack{origin: "https://o.example", token: "last", until: later})
	if n, tokens := queued(); n != 1 || !tokens["last"] {
		t.Errorf("%d places kept after all but one expired (%v), want the one", n, tokens)
	}
	if got := f.keeper.take("https://o.example"); len(got) != 1 || got[0].token != "last" {
		t.Errorf("take: %v, want the one place of the origin", got)
	}
	if n, _ := queued(); n != 0 {
		t.Errorf("%d places kept after the last was taken", n)
	}
}
