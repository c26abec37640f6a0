package crawl_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/robotsguard/robotsguard"
	"github.com/robotsguard/robotsguard/crawl"
)

// hosts is a Base that serves two sites in process, a.example and
// b.example: a robots.txt that disallows /private/, and a page for every
// other path.
type hosts struct{}

func (hosts) RoundTrip(req *http.Request) (*http.Response, error) {
	body := "page " + req.URL.Path
	if req.URL.Path == "/robots.txt" {
		body = "User-agent: *\nDisallow: /private/\nCrawl-delay: 0.01\n"
	}
	return &http.Response{StatusCode: 200, Header: http.Header{}, Request: req, Body: io.NopCloser(strings.NewReader(body))}, nil
}

func Example() {
	t := &robotsguard.Transport{Base: hosts{}, UserAgent: "ExampleBot/1.0"}
	client := &http.Client{Transport: t, Timeout: 10 * time.Second}
	f := &crawl.Frontier{Transport: t}
	ctx := context.Background()
	for _, u := range []string{
		"https://a.example/1", "https://a.example/2", "https://a.example/private/3",
		"https://b.example/1", "https://b.example/2",
	} {
		if err := f.Add(ctx, u); err != nil {
			fmt.Println("not queued:", u)
		}
	}
	var mu sync.Mutex
	var got []string
	err := f.Run(ctx, client, 4, func(ctx context.Context, it crawl.Item, resp *http.Response, err error) error {
		if err != nil {
			return err
		}
		b, _ := io.ReadAll(resp.Body)
		mu.Lock()
		got = append(got, it.Origin()+": "+string(b))
		mu.Unlock()
		return nil
	})
	slices.Sort(got)
	fmt.Println(strings.Join(got, "\n"))
	st := f.Stats()
	fmt.Println("error:", err, "done:", st.Done, "refused:", st.Refused)
	// Output:
	// not queued: https://a.example/private/3
	// https://a.example: page /1
	// https://a.example: page /2
	// https://b.example: page /1
	// https://b.example: page /2
	// error: <nil> done: 4 refused: 1
}
