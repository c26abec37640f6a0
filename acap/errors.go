package acap

import (
	"fmt"
	"strings"
)

// A Refusal is a Decision that does not permit what was asked, as an
// error: package robotsguard refuses a request with one inside its
// DisallowedError (errors.As finds it there).
type Refusal struct {
	Decision Decision
}

// Error says which field, or which conflict, refused.
func (e *Refusal) Error() string { return "robotsguard: ACAP: " + e.Decision.String() }

// A ReferenceError is an ACAP-permissions-reference (section 2.3.2) whose
// resource cannot be read: the crawlers of its record do not know their
// permissions, and are refused until it can be.
type ReferenceError struct {
	Reference Reference
	RobotsURL string // the robots.txt that names it
	Err       error  // why it cannot be read
}

// Error names the reference, the file that holds it, and why it cannot be
// read.
func (e *ReferenceError) Error() string {
	why := "unknown error"
	if e.Err != nil {
		why = strings.TrimPrefix(e.Err.Error(), "robotsguard: ")
	}
	return fmt.Sprintf("robotsguard: the ACAP-permissions-reference %s (line %d of %s) cannot be read: %s", e.Reference.Locator, e.Reference.Line, e.RobotsURL, why)
}

// Unwrap returns Err.
func (e *ReferenceError) Unwrap() error { return e.Err }
