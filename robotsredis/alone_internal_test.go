package robotsredis

import (
	"strconv"
	"testing"
	"time"
)

// TestLastSentBounded: the Fleet remembers the last fleet-paced request of
// at most maxSent origins; those whose holds have ended go first, and an
// origin dropped before its hold ended holds every origin the Fleet does
// not remember until then: forgetting lets no request go sooner.
func TestLastSentBounded(t *testing.T) {
	var l lastSent
	now := time.Now()
	at := func(origin string, hold time.Duration) time.Time {
		t, _ := l.alone(origin, hold, time.Hour, now)
		return t
	}
	// An origin with a request under way is kept.
	l.mark("https://busy.example", now, time.Second, 1)
	// Origins whose holds have ended make room for new ones.
	for i := range maxSent - 1 {
		l.mark("https://old"+strconv.Itoa(i)+".example", now, time.Second, 0)
	}
	later := now.Add(2 * time.Second)
	for i := range maxSent - 1 {
		l.mark("https://new"+strconv.Itoa(i)+".example", later, time.Minute, 0)
	}
	if len(l.m) > maxSent {
		t.Fatalf("%d origins remembered, want at most %d", len(l.m), maxSent)
	}
	if !l.forgot.IsZero() {
		t.Errorf("an origin was dropped before its hold ended (forgot %v), while others had ended", l.forgot)
	}
	// Past the bound, with every hold under way, forgetting holds the
	// origins not remembered.
	for i := range maxSent {
		l.mark("https://more"+strconv.Itoa(i)+".example", later.Add(time.Second), time.Minute, 0)
	}
	if len(l.m) > maxSent {
		t.Fatalf("%d origins remembered, want at most %d", len(l.m), maxSent)
	}
	if l.forgot.Before(later.Add(time.Minute)) {
		t.Errorf("forgot %v, want at least the end of a dropped hold", l.forgot.Sub(later))
	}
	forgotten := 0
	for i := range maxSent - 1 {
		o := "https://new" + strconv.Itoa(i) + ".example"
		if _, ok := l.m[o]; !ok {
			forgotten++
			if nb := at(o, time.Second); nb.Before(later.Add(time.Minute)) {
				t.Fatalf("a forgotten origin may go %v after its last request, want a minute at least", nb.Sub(later))
			}
		}
	}
	if forgotten == 0 {
		t.Error("no origin was forgotten")
	}
	if nb := at("https://more0.example", 2*time.Minute); !nb.Equal(later.Add(time.Second + 2*time.Minute)) {
		t.Errorf("a request paced alone may go %v after the last request, want the longer hold, 2m", nb.Sub(later.Add(time.Second)))
	}
	if _, ok := l.m["https://busy.example"]; !ok {
		t.Error("an origin with a request under way was forgotten while others were not")
	}
}

// TestLastSentBusy: the first request paced alone waits for the process's
// fleet-paced request under way to end, then for the hold.
func TestLastSentBusy(t *testing.T) {
	var l lastSent
	now := time.Now()
	const ttl = time.Minute
	l.mark("https://o.example", now, time.Second, 1)
	at, freed := l.alone("https://o.example", time.Second, ttl, now)
	if freed == nil || !at.Equal(now.Add(ttl)) {
		t.Fatalf("alone with a request under way: %v, %v; want to wait for its end, a lease's TTL at most", at.Sub(now), freed)
	}
	end := now.Add(3 * time.Second)
	l.mark("https://o.example", end, time.Second, -1)
	select {
	case <-freed:
	default:
		t.Fatal("the end of the request under way was not told")
	}
	if at, freed := l.alone("https://o.example", time.Second, ttl, end); freed != nil || !at.Equal(end.Add(time.Second)) {
		t.Errorf("alone after the end: %v after it, %v; want the hold, 1s", at.Sub(end), freed)
	}
	// A request whose end never comes is waited for until its lease
	// has expired.
	l.mark("https://o.example", end, time.Second, 1)
	if at, freed := l.alone("https://o.example", time.Second, ttl, end.Add(ttl)); freed != nil || !at.Equal(end.Add(time.Second)) {
		t.Errorf("alone a TTL after a send that never ended: %v, %v; want the hold alone", at.Sub(end), freed)
	}
}

// TestPhase: a request paced alone goes in its process's window of each
// cycle (the first quarter of the interval of its rank), as soon as it may
// and less than a cycle later; ranks past Size wrap round, and Rank zero
// draws one from 1 to Size.
func TestPhase(t *testing.T) {
	const interval = 100 * time.Millisecond
	base := time.Unix(1_700_000_000, 0)
	for _, tc := range []struct{ size, rank, want int }{
		{4, 1, 1}, {4, 3, 3}, {4, 6, 2}, {1, 5, 1},
	} {
		f := &Fleet{Size: tc.size, Rank: tc.rank}
		f.init()
		if f.rank != tc.want {
			t.Errorf("Size %d, Rank %d: rank %d, want %d", tc.size, tc.rank, f.rank, tc.want)
		}
		cycle := time.Duration(tc.size) * interval
		for e := base; e.Before(base.Add(2 * cycle)); e = e.Add(7 * time.Millisecond) {
			at := f.phase(e, interval)
			if at.Before(e) || at.Sub(e) >= cycle {
				t.Fatalf("Size %d, rank %d: a request that may go at %v goes %v later, want within a cycle", tc.size, f.rank, e.Sub(base), at.Sub(e))
			}
			if tc.size == 1 {
				if !at.Equal(e) {
					t.Fatalf("alone in the fleet, a request that may go at %v waits %v", e.Sub(base), at.Sub(e))
				}
				continue
			}
			off := time.Duration(at.UnixNano()-base.UnixNano()) % cycle
			if lo := time.Duration(f.rank-1) * interval; off < lo || off >= lo+interval/4 {
				t.Fatalf("Size %d, rank %d: a request goes %v into the cycle, want [%v, %v)", tc.size, f.rank, off, lo, lo+interval/4)
			}
		}
	}
	for range 20 {
		f := &Fleet{Size: 3}
		f.init()
		if f.rank < 1 || f.rank > 3 {
			t.Fatalf("Rank zero drew %d, want 1 to 3", f.rank)
		}
	}
}
