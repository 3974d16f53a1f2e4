package errmap

import "fmt"

// Broken is a reply whose status and headers arrived but whose body did
// not arrive whole, or (for a successful read) is not the JSON its
// Content-Type promises. The retry loop retries it like a broken
// connection and counts a write as possibly committed.
type Broken struct {
	Method     string // the request's HTTP method
	StatusCode int    // the status that arrived with the broken body
	Err        error  // the cause, e.g. io.ErrUnexpectedEOF or a JSON syntax error
}

// Error names the method and the status, never the URL.
func (e *Broken) Error() string {
	return fmt.Sprintf("reply broken in transit (%s answered %d): %v", e.Method, e.StatusCode, e.Err)
}

// Unwrap returns the cause.
func (e *Broken) Unwrap() error { return e.Err }
