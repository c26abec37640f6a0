package robotstest_test

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/robotstest"
)

var _ robotsguard.Clock = (*robotstest.Clock)(nil)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func TestClockZero(t *testing.T) {
	var c robotstest.Clock
	if got, want := c.Now(), time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC); !got.Equal(want) {
		t.Errorf("zero Clock reads %v, want %v", got, want)
	}
	c.Advance(time.Hour)
	if got := c.Now(); got.Hour() != 1 {
		t.Errorf("after Advance(1h): %v", got)
	}
}

func TestClockSleepBlocksUntilAdvance(t *testing.T) {
	c := robotstest.NewClock(t0)
	done := make(chan error, 1)
	go func() { done <- c.Sleep(t.Context(), time.Minute) }()
	if err := c.WaitForSleepers(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	c.Advance(59 * time.Second)
	if n := c.Sleepers(); n != 1 {
		t.Fatalf("after 59s, %d sleepers, want 1", n)
	}
	c.Advance(time.Second)
	if err := <-done; err != nil {
		t.Errorf("Sleep = %v, want nil", err)
	}
	if n := c.Sleepers(); n != 0 {
		t.Errorf("%d sleepers, want 0", n)
	}
	if got := c.Now(); !got.Equal(t0.Add(time.Minute)) {
		t.Errorf("Now() = %v", got)
	}
	c.Advance(-time.Hour)
	if got := c.Now(); !got.Equal(t0.Add(time.Minute)) {
		t.Errorf("after a negative Advance, Now() = %v, want unchanged", got)
	}
}

func TestClockSleepWakesInOrder(t *testing.T) {
	c := robotstest.NewClock(t0)
	woke := make(chan time.Duration, 3)
	for _, d := range []time.Duration{3 * time.Second, time.Second, 2 * time.Second} {
		go func() {
			if c.Sleep(t.Context(), d) == nil {
				woke <- d
			}
		}()
	}
	if err := c.WaitForSleepers(t.Context(), 3); err != nil {
		t.Fatal(err)
	}
	for _, want := range []time.Duration{time.Second, 2 * time.Second, 3 * time.Second} {
		c.Advance(time.Second)
		if got := <-woke; got != want {
			t.Errorf("woke the %v sleep, want the %v one", got, want)
		}
	}
}

func TestClockSleepContext(t *testing.T) {
	c := robotstest.NewClock(t0)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- c.Sleep(ctx, time.Hour) }()
	if err := c.WaitForSleepers(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep = %v, want context.Canceled", err)
	}
	if n := c.Sleepers(); n != 0 {
		t.Errorf("%d sleepers after cancel, want 0", n)
	}
	if err := c.Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("Sleep on a done context = %v", err)
	}
	if err := c.Sleep(t.Context(), 0); err != nil {
		t.Errorf("Sleep(0) = %v", err)
	}
	if err := c.WaitForSleepers(ctx, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("WaitForSleepers on a done context = %v", err)
	}
}

func TestClockAutoAdvance(t *testing.T) {
	c := robotstest.NewClock(t0)
	c.SetAutoAdvance(true)
	if err := c.Sleep(t.Context(), 5*time.Second); err != nil {
		t.Fatal(err)
	}
	if got := c.Now(); !got.Equal(t0.Add(5 * time.Second)) {
		t.Errorf("Now() = %v, want 5s on", got)
	}
	if n := c.Sleepers(); n != 0 {
		t.Errorf("%d sleepers", n)
	}
}

// The Transport keeps a robots.txt fresh for as long as the clock says:
// with no cache directives, 24 hours.
func TestClockCacheFreshness(t *testing.T) {
	o := robotstest.NewOrigin(t, "User-agent: *\nDisallow: /x\n")
	c := o.Client("FooBot/1.0")
	for _, step := range []struct {
		advance time.Duration
		fetches int
	}{{0, 1}, {23 * time.Hour, 1}, {2 * time.Hour, 2}, {time.Hour, 2}} {
		o.Clock.Advance(step.advance)
		if _, _, err := get(t, c, o.URL+"/page", ""); err != nil {
			t.Fatal(err)
		}
		if n := o.RobotsFetches(); n != step.fetches {
			t.Errorf("after %v more: %d fetches, want %d", step.advance, n, step.fetches)
		}
	}
}

// A lifetime the Origin serves is kept by the clock too; a changed file is
// read when it is fetched again.
func TestClockCacheMaxAgeAndSetRobots(t *testing.T) {
	ftb := &fakeTB{TB: t}
	o := robotstest.NewOrigin(ftb, "User-agent: *\nDisallow: /x\n")
	o.Fault("/robots.txt", robotstest.Status(200, "Cache-Control: max-age=300"))
	c := o.Client("FooBot/1.0")
	if _, _, err := get(t, c, o.URL+"/y", ""); err != nil {
		t.Fatal(err)
	}
	o.SetRobots("User-agent: *\nDisallow: /y\n")
	o.Clock.Advance(4 * time.Minute)
	if _, _, err := get(t, c, o.URL+"/y", ""); err != nil {
		t.Errorf("within max-age, the old file allows /y: %v", err)
	}
	o.Clock.Advance(2 * time.Minute)
	if _, _, err := get(t, c, o.URL+"/y", ""); !errors.Is(err, robotsguard.ErrDisallowed) {
		t.Errorf("past max-age, the new file disallows /y: %v", err)
	}
	if _, _, err := get(t, c, o.URL+"/x", ""); err != nil {
		t.Errorf("the new file allows /x: %v", err)
	}
	if n := o.RobotsFetches(); n != 2 {
		t.Errorf("%d fetches, want 2", n)
	}
	if ftb.Failed() {
		t.Errorf("failed by %v", o.Disallowed())
	}
}

// With a Clock that does not advance itself, a Transport's pacing waits
// until the test advances it.
func TestClockPacesTransport(t *testing.T) {
	o := robotstest.NewUnstartedOrigin(t, "User-agent: *\nCrawl-delay: 10\n")
	o.Clock = robotstest.NewClock(t0)
	o.Start()
	tr := o.Transport("FooBot/1.0")
	tr.NoPacing = false
	c := &http.Client{Transport: tr}
	if _, _, err := get(t, c, o.URL+"/a", ""); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, _, err := getNoFatal(c, o.URL+"/b")
		done <- err
	}()
	if err := o.Clock.WaitForSleepers(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	if n := len(o.Requests()); n != 2 {
		t.Fatalf("%d requests while /b waits, want 2", n)
	}
	o.Clock.Advance(10 * time.Second)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	rs := o.Requests()
	if got := rs[2].Time.Sub(rs[1].Time); got != 10*time.Second {
		t.Errorf("/b sent %v after /a, want 10s", got)
	}
}

// Sleeps records every call of Sleep, in order: those that return at once
// and those still blocked.
func TestClockSleeps(t *testing.T) {
	c := robotstest.NewClock(t0)
	if got := c.Sleeps(); len(got) != 0 {
		t.Fatalf("a new Clock's Sleeps() = %v, want none", got)
	}
	done, cancel := context.WithCancel(t.Context())
	cancel()
	c.Sleep(done, time.Hour) // a context already done
	c.Sleep(t.Context(), 0)
	c.Sleep(t.Context(), -time.Second)
	blocked := make(chan error, 1)
	go func() { blocked <- c.Sleep(t.Context(), 2*time.Second) }()
	if err := c.WaitForSleepers(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	want := []time.Duration{time.Hour, 0, -time.Second, 2 * time.Second}
	if got := c.Sleeps(); !slices.Equal(got, want) {
		t.Errorf("while one sleeps, Sleeps() = %v, want %v", got, want)
	}
	c.Advance(2 * time.Second)
	if err := <-blocked; err != nil {
		t.Fatal(err)
	}
	c.SetAutoAdvance(true)
	c.Sleep(t.Context(), 5*time.Second)
	want = append(want, 5*time.Second)
	got := c.Sleeps()
	if !slices.Equal(got, want) {
		t.Errorf("Sleeps() = %v, want %v", got, want)
	}
	got[0] = 0 // the caller's copy
	if c.Sleeps()[0] != time.Hour {
		t.Error("Sleeps() returned the Clock's own record")
	}
}

// A Transport's pauses show in its Clock's Sleeps: a Crawl-delay of 2
// seconds before each request but the first.
func TestClockSleepsOfTransport(t *testing.T) {
	o := robotstest.NewOrigin(t, "User-agent: *\nCrawl-delay: 2\n")
	tr := o.Transport("FooBot/1.0")
	tr.NoPacing = false
	c := &http.Client{Transport: tr}
	for _, path := range []string{"/a", "/b", "/c"} {
		if _, _, err := get(t, c, o.URL+path, ""); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := o.Clock.Sleeps(), []time.Duration{2 * time.Second, 2 * time.Second}; !slices.Equal(got, want) {
		t.Errorf("Sleeps() = %v, want %v", got, want)
	}
}
