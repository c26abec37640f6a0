// Command crawlrate measures how close a crawl comes to the bound its
// origins' Crawl-delays set, for a naive worker pool (workers take the
// URLs in list order and wait inside the Transport for each origin's
// turn) and for package crawl's Frontier, with the URL list in site order
// (a sitemap's) and shuffled.
//
//	go run ./cmd/crawlrate                      # in bench: 64 workers, 1,000 origins, 10 pages, 10–100 ms
//	go run ./cmd/crawlrate -origins 3 -pages 10 -workers 8 -mindelay 200ms -maxdelay 200ms -timeout 1s
//
// The origins are local: one httptest server answers every host
// (o0.test, o1.test, …) through a dialer that connects any host to it,
// or, with -inprocess, its handler without a connection.
// Origin i asks for a Crawl-delay spread evenly from -mindelay to
// -maxdelay. Every robots.txt is fetched before the clock starts.
//
// The bound is the least time the crawl can take by the brief's reckoning:
// the larger of the origins' pages × delay summed and spread over the
// workers (what a worker that waits out each delay can do), and one
// origin's own pages × delay (its requests go one at a time). The serial
// bound alone is printed too: a loop whose workers do not wait out the
// delays can approach it (or pass it a little: an origin's first page
// waits for none, so its pages take (pages − 1) × delay). "of bound" is
// bound ÷ elapsed.
//
// With -timeout, requests have a Client.Timeout: the naive pool loses the
// pages whose requests fail with a *robotsguard.PacingError (counted); the
// Frontier queues them again.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/crawl"
)

func main() {
	origins := flag.Int("origins", 1000, "origins")
	pages := flag.Int("pages", 10, "pages per origin")
	workers := flag.Int("workers", 64, "workers")
	minDelay := flag.Duration("mindelay", 10*time.Millisecond, "least Crawl-delay")
	maxDelay := flag.Duration("maxdelay", 100*time.Millisecond, "greatest Crawl-delay")
	timeout := flag.Duration("timeout", 0, "Client.Timeout (0: none)")
	runs := flag.Int("runs", 1, "runs of each row")
	only := flag.String("only", "", "run only the rows whose loop/order contains this")
	inProcess := flag.Bool("inprocess", false, "serve the origins in process (an http.Handler as Base), not over loopback TCP")
	flag.Parse()

	delays := make([]time.Duration, *origins)
	for i := range delays {
		delays[i] = *minDelay
		if *origins > 1 {
			delays[i] += (*maxDelay - *minDelay) * time.Duration(i) / time.Duration(*origins-1)
		}
		delays[i] = delays[i].Round(time.Millisecond)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/robots.txt" {
			host := r.Host
			if host == "" {
				host = r.URL.Host // in process: the client's request
			}
			i, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(host, "o"), ".test"))
			fmt.Fprintf(w, "User-agent: *\nCrawl-delay: %g\n", delays[i%len(delays)].Seconds())
			return
		}
		io.WriteString(w, "<html>a page</html>")
	}))
	defer srv.Close()

	var sum, serial time.Duration
	for _, d := range delays {
		sum += time.Duration(*pages) * d
		serial = max(serial, time.Duration(*pages)*d)
	}
	bound := max(sum/time.Duration(*workers), serial)
	fmt.Printf("%d origins × %d pages, %d workers, Crawl-delay %v–%v, Client.Timeout %v\n", *origins, *pages, *workers, *minDelay, *maxDelay, *timeout)
	fmt.Printf("bound %v (Σ pages×delay / workers %v; serial: pages × slowest delay %v)\n\n", bound.Round(time.Millisecond), (sum / time.Duration(*workers)).Round(time.Millisecond), serial)

	siteOrder := make([]string, 0, *origins**pages)
	for o := range *origins {
		for p := range *pages {
			siteOrder = append(siteOrder, fmt.Sprintf("http://o%d.test/page/%d", o, p))
		}
	}
	shuffled := append([]string(nil), siteOrder...)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })

	const row = "%-9s %-9s %6v %5v %9v %8v %9v %16v\n"
	fmt.Printf(row, "loop", "order", "pages", "lost", "elapsed", "pages/s", "of bound", "of serial bound")
	for range *runs {
		for _, loop := range []string{"naive", "frontier"} {
			for _, order := range []string{"site", "shuffled"} {
				if *only != "" && !strings.Contains(loop+"/"+order, *only) {
					continue
				}
				urls := siteOrder
				if order == "shuffled" {
					urls = shuffled
				}
				t := newTransport(srv.Listener.Addr().String(), *workers)
				if *inProcess {
					t.Base = handlerBase{srv.Config.Handler}
				}
				client := &http.Client{Transport: t, Timeout: *timeout}
				hosts := make([]string, *origins)
				for i := range hosts {
					hosts[i] = fmt.Sprintf("http://o%d.test", i)
				}
				if err := t.Prefetch(context.Background(), hosts...); err != nil {
					log.Fatal(err)
				}
				var fetched, lost int64
				var elapsed time.Duration
				if loop == "naive" {
					fetched, lost, elapsed = naive(client, urls, *workers)
				} else {
					fetched, lost, elapsed = frontier(t, client, urls, *workers)
				}
				t.CloseIdleConnections()
				fmt.Printf(row, loop, order, fetched, lost, elapsed.Round(time.Millisecond), fmt.Sprintf("%.0f", float64(fetched)/elapsed.Seconds()),
					fmt.Sprintf("%.0f%%", 100*bound.Seconds()/elapsed.Seconds()), fmt.Sprintf("%.0f%%", 100*serial.Seconds()/elapsed.Seconds()))
			}
		}
	}
}

// newTransport returns a Transport that sends every host's requests to
// addr.
func newTransport(addr string, workers int) *robotsguard.Transport {
	var d net.Dialer
	base := &http.Transport{
		DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		},
		MaxIdleConns:        0, // no limit: one connection kept per origin
		MaxIdleConnsPerHost: 1,
		IdleConnTimeout:     time.Second,
	}
	return &robotsguard.Transport{Base: base, UserAgent: "CrawlRate/1.0"}
}

// handlerBase answers requests with an http.Handler, in process.
type handlerBase struct{ h http.Handler }

func (b handlerBase) RoundTrip(req *http.Request) (*http.Response, error) {
	w := httptest.NewRecorder()
	b.h.ServeHTTP(w, req)
	return w.Result(), nil
}

// get fetches u and reads its body; it reports whether the request failed
// with a *robotsguard.PacingError.
func get(client *http.Client, u string) (paced bool) {
	resp, err := client.Get(u)
	if err != nil {
		var pe *robotsguard.PacingError
		if errors.As(err, &pe) {
			return true
		}
		log.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return false
}

// naive crawls urls with workers goroutines taking them in order.
func naive(client *http.Client, urls []string, workers int) (fetched, lost int64, elapsed time.Duration) {
	next := make(chan string)
	var wg sync.WaitGroup
	var nf, nl atomic.Int64
	start := time.Now()
	for range workers {
		wg.Go(func() {
			for u := range next {
				if get(client, u) {
					nl.Add(1)
				} else {
					nf.Add(1)
				}
			}
		})
	}
	for _, u := range urls {
		next <- u
	}
	close(next)
	wg.Wait()
	return nf.Load(), nl.Load(), time.Since(start)
}

// frontier crawls urls with a crawl.Frontier and workers goroutines.
func frontier(t *robotsguard.Transport, client *http.Client, urls []string, workers int) (fetched, lost int64, elapsed time.Duration) {
	start := time.Now()
	f := &crawl.Frontier{Transport: t}
	ctx := context.Background()
	for _, u := range urls {
		if err := f.Add(ctx, u); err != nil {
			log.Fatal(err)
		}
	}
	err := f.Run(ctx, client, workers, func(_ context.Context, _ crawl.Item, resp *http.Response, err error) error {
		if err != nil {
			return err
		}
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	})
	if err != nil {
		log.Fatal(err)
	}
	st := f.Stats()
	return int64(st.Done), 0, time.Since(start)
}
