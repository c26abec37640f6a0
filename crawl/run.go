package crawl

import (
	"context"
	"errors"
	"net/http"
	"sync"
)

// Run crawls the Frontier with workers goroutines (at least one) until no
// URL is queued or in flight, ctx ends, or fn returns an error. Each worker
// takes a URL from Next, sends a GET for it through client (whose
// Transport must be the Frontier's Transport, or wrap it), and calls fn
// with the response, or with the request's error; it then closes the
// response body, and calls Done. A request that fails with a
// *robotsguard.PacingError, or is refused for a transient reason within
// the Frontier's Retries, is queued again (see Done), and fn does not see
// it. fn may call Add, to queue the links of the page it reads: the crawl
// goes on while it runs.
//
// Run returns nil when the crawl is over, fn's first error, or ctx's. fn
// is called from several goroutines at once.
func (f *Frontier) Run(ctx context.Context, client *http.Client, workers int, fn func(ctx context.Context, it Item, resp *http.Response, err error) error) error {
	f.init()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			for {
				it, err := f.Next(ctx)
				if err != nil {
					if !errors.Is(err, ErrEmpty) {
						cancel(err)
					}
					return
				}
				if err := f.fetch(ctx, client, it, fn); err != nil {
					cancel(err)
					return
				}
			}
		})
	}
	wg.Wait()
	return context.Cause(ctx) // nil when nothing ended it
}

// fetch sends it's request and hands the outcome to fn, then ends it
// (Done): after fn, so that the links fn adds are queued while it is in
// flight, and the crawl is not over.
func (f *Frontier) fetch(ctx context.Context, client *http.Client, it Item, fn func(context.Context, Item, *http.Response, error) error) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, it.URL, nil)
	var resp *http.Response
	if err == nil {
		resp, err = client.Do(req)
	}
	if f.requeue(it, err) {
		if resp != nil {
			resp.Body.Close()
		}
		return nil
	}
	ferr := fn(ctx, it, resp, err)
	if resp != nil {
		resp.Body.Close()
	}
	f.done(it, resp, err)
	return ferr
}
