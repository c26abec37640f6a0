package robotsguard

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/robotsguard/robotsguard/policy"
)

// ErrDisallowed is the error of every request the Transport refuses:
// errors.Is(err, ErrDisallowed) holds for it, and errors.As finds a
// *DisallowedError with the details.
var ErrDisallowed = errors.New("robotsguard: disallowed by robots.txt")

// ErrUnsupportedURL is the error of a request whose URL has no robots.txt
// to check it against: a scheme other than http and https, no host, or an
// Opaque that names a host. Such a request is not sent.
var ErrUnsupportedURL = errors.New("robotsguard: URL cannot be checked against robots.txt")

// unsupportedURL returns an error matching ErrUnsupportedURL that says why.
func unsupportedURL(why string) error {
	return fmt.Errorf("%w: %s", ErrUnsupportedURL, why)
}

// Reason tells why the Transport refused a request. ReasonRule,
// ReasonStatus, ReasonACAP and ReasonDelay are the site's word: drop the URL (until its
// robots.txt changes). ReasonUnreachable and ReasonACAPReference are
// transient: the rules could not be read, and the URL may be allowed once
// they can; requeue it for later.
type Reason uint8

const (
	// ReasonRule: a rule of the origin's robots.txt disallows the URL;
	// DisallowedError.Decision names it.
	ReasonRule Reason = iota + 1
	// ReasonUnreachable: the robots.txt could not be fetched (a 5xx, a
	// network error, a timeout, a truncated body, a content coding that
	// cannot be undone) and no copy of it can stand in, so nothing may be
	// fetched (RFC 9309 §2.3.1.4); DisallowedError.Err says why.
	ReasonUnreachable
	// ReasonStatus: the StatusPolicy disallows everything for the status
	// the robots.txt was served with (e.g. 401 or 403 under
	// Koster1996StatusPolicy).
	ReasonStatus
	// ReasonACAP: with Transport.ACAP set, the ACAP records of the
	// robots.txt (pooled with its conventional ones) do not permit
	// crawling the URL; DisallowedError.Err, an *acap.Refusal, says
	// which field decided.
	ReasonACAP
	// ReasonACAPReference: with Transport.ACAP set, an
	// ACAP-permissions-reference that applies to the agent names a
	// resource that cannot be read (or that its status disallows), so
	// the permissions are unknown; DisallowedError.Err, an
	// *acap.ReferenceError, names it and says why.
	ReasonACAPReference
	// ReasonDelay: with Transport.RefuseAboveMaxDelay set, the robots.txt
	// asks the agent for a Crawl-delay or Request-rate longer than
	// MaxDelay; DisallowedError.Delay is the pause it asks for. The
	// site's word, as long as its file says so.
	ReasonDelay
)

var reasonNames = [...]string{
	ReasonRule:          "disallowed by a rule",
	ReasonUnreachable:   "robots.txt unreachable",
	ReasonStatus:        "robots.txt status disallows all",
	ReasonACAP:          "not permitted by ACAP",
	ReasonACAPReference: "ACAP permissions reference unreadable",
	ReasonDelay:         "crawl-delay above MaxDelay",
}

// String describes the reason in a few words.
func (r Reason) String() string {
	if int(r) < len(reasonNames) && reasonNames[r] != "" {
		return reasonNames[r]
	}
	return "Reason(" + strconv.Itoa(int(r)) + ")"
}

// A DisallowedError is a refused request: no byte of it was sent. Its
// message says why, not which request: an http.Client puts the method and
// URL before it ("Get \"https://example.com/a\": robotsguard: disallowed
// …"), and the fields hold them.
type DisallowedError struct {
	Method    string
	URL       string // the request's URL, its password redacted
	Agent     string // the crawler's product token, which selected the group
	RobotsURL string // the robots.txt that decided
	Reason    Reason
	// Decision is the policy's verdict when Reason is ReasonRule: the
	// rule, its line, and the group followed.
	Decision policy.Decision
	// Status is the status code of the last usable robots.txt response
	// (2xx, 3xx or 4xx), or 0 when there was none; the status of a failed
	// fetch (a 5xx) is in Err, a *FetchError.
	Status int
	// Delay is the pause between requests the robots.txt asks for, when
	// Reason is ReasonDelay.
	Delay time.Duration
	// NotBefore is when the rules are read again, for the transient
	// reasons (ReasonUnreachable, ReasonACAPReference): the end of the
	// back-off after the failed fetch. A URL requeued for then is decided
	// by what that fetch gets; one sent sooner is refused the same way.
	NotBefore time.Time
	// Err holds the details of some reasons: a *FetchError for
	// ReasonUnreachable (why the robots.txt could not be fetched), an
	// *acap.Refusal for ReasonACAP (the deciding field), an
	// *acap.ReferenceError for ReasonACAPReference (the reference, and a
	// *FetchError). errors.As finds them through the DisallowedError,
	// but errors.Is does not match what they wrap: a refusal never passes
	// for the error it holds (the fetch's timeout is not the request's).
	Err error

	retryIn time.Duration // NotBefore from the refusal, for the message
}

// Error says for which agent the request was refused, and why.
func (e *DisallowedError) Error() string {
	head := fmt.Sprintf("robotsguard: disallowed for %q", e.Agent)
	switch e.Reason {
	case ReasonRule:
		return fmt.Sprintf("%s by %s line %d %q (group %q)", head, e.RobotsURL, e.Decision.Rule.Line, e.Decision.Rule.String(), e.Decision.GroupAgent)
	case ReasonUnreachable:
		return fmt.Sprintf("%s: %s is unreachable and no copy of it can stand in: %s%s", head, e.RobotsURL, fetchCause(e.Err, e.RobotsURL), e.again())
	case ReasonStatus:
		return fmt.Sprintf("%s: %s answered status %d, which disallows everything", head, e.RobotsURL, e.Status)
	case ReasonACAP:
		return fmt.Sprintf("%s by the ACAP records of %s: %s", head, e.RobotsURL, strings.TrimPrefix(unprefixed(e.Err), "ACAP: "))
	case ReasonACAPReference:
		return fmt.Sprintf("%s: %s%s", head, unprefixed(e.Err), e.again())
	case ReasonDelay:
		return fmt.Sprintf("%s: %s asks for %v between requests, more than MaxDelay allows", head, e.RobotsURL, e.Delay)
	}
	return head
}

// again says when the rules are read again, for a transient reason.
func (e *DisallowedError) again() string {
	if e.NotBefore.IsZero() {
		return ""
	}
	return "; it is fetched again in " + roundWait(e.retryIn).String()
}

// fetchCause returns why the fetch of robotsURL failed, from err (a
// *FetchError, usually), without naming robotsURL again.
func fetchCause(err error, robotsURL string) string {
	var fe *FetchError
	if errors.As(err, &fe) && fe.URL == robotsURL {
		return fe.cause()
	}
	return unprefixed(err)
}

// Is reports whether target is ErrDisallowed.
func (e *DisallowedError) Is(target error) bool { return target == ErrDisallowed }

// As finds target in Err's chain (see Err).
func (e *DisallowedError) As(target any) bool { return e.Err != nil && errors.As(e.Err, target) }

// wrap returns err, which says why, as the error of what: its message is
// "robotsguard: what: " and err's without the package prefix, so that
// the prefix is not said twice.
func wrap(what string, err error) error { return &wrapped{what, err} }

type wrapped struct {
	what string
	err  error
}

func (w *wrapped) Error() string { return "robotsguard: " + w.what + ": " + unprefixed(w.err) }
func (w *wrapped) Unwrap() error { return w.err }

// unprefixed returns err's message without the package prefix, to nest it
// in another message of the package.
func unprefixed(err error) string {
	if err == nil {
		return "unknown error"
	}
	return strings.TrimPrefix(err.Error(), "robotsguard: ")
}

// A FetchError is why a robots.txt (or an ACAP permissions reference)
// could not be fetched.
type FetchError struct {
	URL    string // the robots.txt
	Status int    // the last status received, or 0
	Err    error  // the transport error, or nil when Status says it all

	// timeout is the Transport's FetchTimeout when the fetch's own
	// deadline ended it, for the message: "context deadline exceeded"
	// alone does not say whose deadline.
	timeout time.Duration
}

// Error says what could not be fetched, and why.
func (e *FetchError) Error() string {
	return "robotsguard: fetching " + e.URL + ": " + e.cause()
}

// cause says why the fetch failed, without naming the URL again: the
// *url.Error of a request for it ("Get \"URL\": EOF") says only its error.
func (e *FetchError) cause() string {
	err := e.Err
	var ue *url.Error
	if errors.As(err, &ue) && ue.URL == e.URL {
		err = ue.Err
	}
	why := ""
	if e.timeout > 0 {
		why = "no complete answer within FetchTimeout (" + roundWait(e.timeout).String() + "): "
	}
	switch {
	case err != nil && e.Status != 0:
		return fmt.Sprintf("status %d: %s%s", e.Status, why, unprefixed(err))
	case err != nil:
		return why + unprefixed(err)
	}
	return fmt.Sprintf("status %d", e.Status)
}

// Unwrap returns Err.
func (e *FetchError) Unwrap() error { return e.Err }

// A PanicError is a panic recovered while a robots.txt was being fetched
// (in Base, reading the body, or in the StatusPolicy): the fetch failed
// with it, inside a *FetchError, and the requests waiting on it were
// refused, instead of the process dying. A panic in a Store call is
// recovered too, and costs that call (Stats.StoreErrors).
type PanicError struct {
	Value any    // what was passed to panic
	Stack []byte // the stack of the goroutine that panicked
}

// Error returns the panic's value.
func (e *PanicError) Error() string { return fmt.Sprintf("robotsguard: panic: %v", e.Value) }
