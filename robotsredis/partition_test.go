package robotsredis_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/robotsguard/robotsguard/robotsredis"
)

func origins(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("https://site%d.example", i)
	}
	return out
}

func workers(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("worker-%d", i)
	}
	return out
}

// TestRendezvousBalance: origins spread evenly over workers.
func TestRendezvousBalance(t *testing.T) {
	const n, k = 20000, 8
	r := robotsredis.NewRendezvous(workers(k)...)
	count := map[string]int{}
	for _, o := range origins(n) {
		count[r.Owner(o)]++
	}
	if len(count) != k {
		t.Fatalf("%d workers got origins, want %d", len(count), k)
	}
	want := float64(n) / k
	for w, c := range count {
		if math.Abs(float64(c)-want) > 0.06*want {
			t.Errorf("%s has %d origins, want %.0f ± 6%%", w, c, want)
		}
	}
}

// TestRendezvousStable: a worker joining takes origins only from others,
// about 1/(k+1) of them; a worker leaving moves only its own.
func TestRendezvousStable(t *testing.T) {
	const n, k = 20000, 8
	os := origins(n)
	before := robotsredis.NewRendezvous(workers(k)...)
	joined := robotsredis.NewRendezvous(append(workers(k), "worker-new")...)
	moved := 0
	for _, o := range os {
		a, b := before.Owner(o), joined.Owner(o)
		if a != b {
			moved++
			if b != "worker-new" {
				t.Fatalf("%s moved from %s to %s, not to the new worker", o, a, b)
			}
		}
	}
	if want := float64(n) / (k + 1); math.Abs(float64(moved)-want) > 0.1*want {
		t.Errorf("%d origins moved to the new worker, want about %.0f", moved, want)
	}
	left := robotsredis.NewRendezvous(workers(k - 1)...) // worker-7 leaves
	for _, o := range os {
		if a, b := before.Owner(o), left.Owner(o); a != b && a != fmt.Sprintf("worker-%d", k-1) {
			t.Fatalf("%s moved from %s to %s though %s stayed", o, a, b, a)
		}
	}
	// Order of the list does not matter.
	rev := workers(k)
	for i, j := 0, len(rev)-1; i < j; i, j = i+1, j-1 {
		rev[i], rev[j] = rev[j], rev[i]
	}
	r2 := robotsredis.NewRendezvous(rev...)
	for _, o := range os[:1000] {
		if before.Owner(o) != r2.Owner(o) {
			t.Fatal("the order of workers changed an assignment")
		}
	}
	if (&robotsredis.Rendezvous{}).Owner("https://a.example") != "" {
		t.Error("the zero Rendezvous assigned an origin")
	}
}
