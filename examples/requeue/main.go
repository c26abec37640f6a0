// Command requeue shows a crawler that keeps every page when the origin's
// pace is slower than its HTTP client's Timeout allows: a request that
// cannot go before its deadline fails at once with a
// *robotsguard.PacingError, and the crawler puts the URL back in its queue
// for the error's NotBefore instead of losing it.
//
//	go run ./examples/requeue
package main

import (
	"container/heap"
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/robotsguard/robotsguard"
)

func main() {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			io.WriteString(w, "User-agent: *\nCrawl-delay: 1\n")
			return
		}
		fmt.Fprintf(w, "page %s\n", r.URL.Path)
	}))
	defer site.Close()

	// A client whose Timeout (1.5 s) is shorter than the wait of most
	// requests sent at once to an origin with a Crawl-delay of 1 s.
	client := &http.Client{
		Transport: &robotsguard.Transport{UserAgent: "ExampleBot/1.0 (+https://example.com/bot)"},
		Timeout:   1500 * time.Millisecond,
	}

	// A frontier ordered by the time each URL may be fetched.
	start := time.Now()
	q := &frontier{}
	for i := range 5 {
		heap.Push(q, item{url: fmt.Sprintf("%s/page/%d", site.URL, i), at: start})
	}
	type result struct {
		it  item
		err error
	}
	results := make(chan result)
	inFlight := 0
	for q.Len() > 0 || inFlight > 0 {
		// Send every URL that is due, each in its own goroutine.
		for q.Len() > 0 && !(*q)[0].at.After(time.Now()) {
			it := heap.Pop(q).(item)
			inFlight++
			go func() {
				resp, err := client.Get(it.url)
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				results <- result{it, err}
			}()
		}
		var wake <-chan time.Time
		if q.Len() > 0 {
			wake = time.After(time.Until((*q)[0].at))
		}
		select {
		case r := <-results:
			inFlight--
			path := r.it.url[len(site.URL):]
			var pe *robotsguard.PacingError
			switch {
			case errors.As(r.err, &pe):
				r.it.at = pe.NotBefore
				heap.Push(q, r.it)
				fmt.Printf("%-8s requeued: may go in %v\n", path, time.Until(pe.NotBefore).Round(100*time.Millisecond).Abs())
			case r.err != nil:
				log.Fatal(r.err)
			default:
				fmt.Printf("%-8s fetched at %v\n", path, time.Since(start).Round(100*time.Millisecond))
			}
		case <-wake:
		}
	}
	fmt.Println("\nEvery page fetched, one a second, none lost to the client's Timeout.")
}

type item struct {
	url string
	at  time.Time
}

type frontier []item

func (f frontier) Len() int           { return len(f) }
func (f frontier) Less(i, j int) bool { return f[i].at.Before(f[j].at) }
func (f frontier) Swap(i, j int)      { f[i], f[j] = f[j], f[i] }
func (f *frontier) Push(x any)        { *f = append(*f, x.(item)) }
func (f *frontier) Pop() any {
	old := *f
	it := old[len(old)-1]
	*f = old[:len(old)-1]
	return it
}
