package robotsguard

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/robotsguard/robotsguard/acap"
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
	// crawling the URL; DisallowedError.ACAP says which field decided.
	ReasonACAP
	// ReasonACAPReference: with Transport.ACAP set, an
	// ACAP-permissions-reference that applies to the agent names a
	// resource that cannot be read (or that its status disallows), so
	// the permissions are unknown; DisallowedError.Reference names it and
	// Err says why.
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

// A DisallowedError is a refused request: no byte of it was sent.
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
	// ACAP is the ACAP verdict when Reason is ReasonACAP: the deciding
	// field and its line, or the fields in conflict.
	ACAP acap.Decision
	// Reference is the permissions reference that could not be read,
	// when Reason is ReasonACAPReference.
	Reference acap.Reference
	// Delay is the pause between requests the robots.txt asks for, when
	// Reason is ReasonDelay.
	Delay time.Duration
	// Err is why the robots.txt is unreachable, for ReasonUnreachable, or
	// the permissions reference, for ReasonACAPReference: usually a
	// *FetchError. It is not returned by Unwrap, so that a
	// refusal never passes for the error it holds (a fetch's timeout is not
	// the request's).
	Err error
}

// Error says what was refused, for which agent, and why.
func (e *DisallowedError) Error() string {
	head := fmt.Sprintf("robotsguard: %s %s disallowed for %q", e.Method, e.URL, e.Agent)
	switch e.Reason {
	case ReasonRule:
		return fmt.Sprintf("%s by %s line %d %q (group %q)", head, e.RobotsURL, e.Decision.Rule.Line, e.Decision.Rule.String(), e.Decision.GroupAgent)
	case ReasonUnreachable:
		return fmt.Sprintf("%s: %s unreachable: %s", head, e.RobotsURL, unprefixed(e.Err))
	case ReasonStatus:
		return fmt.Sprintf("%s: %s answered status %d, which disallows everything", head, e.RobotsURL, e.Status)
	case ReasonACAP:
		return fmt.Sprintf("%s by the ACAP records of %s: %v", head, e.RobotsURL, e.ACAP)
	case ReasonACAPReference:
		return fmt.Sprintf("%s: the ACAP-permissions-reference %s (line %d of %s) cannot be read: %s", head, e.Reference.Locator, e.Reference.Line, e.RobotsURL, unprefixed(e.Err))
	case ReasonDelay:
		return fmt.Sprintf("%s: %s asks for %v between requests, more than MaxDelay allows", head, e.RobotsURL, e.Delay)
	}
	return head
}

// Is reports whether target is ErrDisallowed.
func (e *DisallowedError) Is(target error) bool { return target == ErrDisallowed }

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
}

// Error says what could not be fetched, and why.
func (e *FetchError) Error() string {
	switch {
	case e.Err != nil && e.Status != 0:
		return fmt.Sprintf("robotsguard: fetching %s: status %d: %s", e.URL, e.Status, unprefixed(e.Err))
	case e.Err != nil:
		return fmt.Sprintf("robotsguard: fetching %s: %s", e.URL, unprefixed(e.Err))
	}
	return fmt.Sprintf("robotsguard: fetching %s: status %d", e.URL, e.Status)
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
