package robotsguard_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/robotsguard/robotsguard/usage"
)

func TestUsageReadsTDMRepOnce(t *testing.T) {
	h := newHarness(t)
	s := newOrigin(t, h.clock, "User-agent: *\nAllow: /\n", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/tdmrep.json" {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`[{"location": "/", "tdm-reservation": 1, "tdm-policy": "https://example.com/policy.json"}]`))
			return
		}
		w.Write([]byte("ok"))
	})
	for range 3 {
		d := h.usageOf(s.URL+"/a", usage.TDM, nil)
		if d.Verdict != usage.Disallowed || d.Decisive.Source.Signal != usage.TDMRep || d.Conditions.Policy != "https://example.com/policy.json" {
			t.Fatalf("tdm reserved by tdmrep.json: %v %+v", d, d.Conditions)
		}
	}
	h.usageOf(s.URL+"/b", usage.TrainAI, nil)
	h.usageOf(s.URL+"/b", usage.Search, nil)
	if n := count(s, "/.well-known/tdmrep.json"); n != 1 {
		t.Errorf("tdmrep.json fetched %d times, want 1", n)
	}
}

func TestUsageTDMRepUnreachableIsNoFile(t *testing.T) {
	h := newHarness(t)
	s := newOrigin(t, h.clock, "User-agent: *\nAllow: /\n", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/.well-known/tdmrep.json" {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Write([]byte("ok"))
	})
	// TDMRep: "Failure to provide access to such a representation
	// implies that the origin server does not implement this protocol."
	d := h.usageOf(s.URL+"/a", usage.TDM, nil)
	if d.Verdict != usage.Unknown || len(d.Evidence) != 1 || !strings.Contains(d.Evidence[0].Source.String(), "tdmrep.json \"cannot be read") {
		t.Errorf("tdm with tdmrep.json unreachable: %v %v", d, d.Evidence)
	}
	// The page's own reservation still counts.
	page := usage.ReadHeader(http.Header{"Tdm-Reservation": {"1"}})
	if d := h.usageOf(s.URL+"/a", usage.TDM, page); d.Verdict != usage.Disallowed || d.Decisive.Source.Place != usage.InHeader {
		t.Errorf("tdm reserved by the header, tdmrep.json unreachable: %v", d)
	}
	if d := h.usageOf(s.URL+"/a", usage.Search, nil); d.Verdict == usage.Disallowed {
		t.Errorf("search disallowed by an unreachable tdmrep.json: %v", d)
	}
}

func TestUsageTDMRepAbsent(t *testing.T) {
	h := newHarness(t)
	s := newOrigin(t, h.clock, "User-agent: *\nAllow: /\n", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	if d := h.usageOf(s.URL+"/a", usage.TDM, nil); d.Verdict != usage.Unknown || len(d.Evidence) != 0 {
		t.Errorf("tdm without tdmrep.json: %v %v", d, d.Evidence)
	}
}
