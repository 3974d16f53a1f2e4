package retry

import (
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
)

// retryAfter returns how long a response asks the client to wait before the
// next attempt: the largest of retry-after-ms, x-ms-retry-after-ms (whole
// milliseconds) and Retry-After (whole seconds or an HTTP date, measured
// from now). Unparseable, negative and past values count as no request.
// Taking the largest makes sure the client never comes back sooner than any
// of the headers asked.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	var d time.Duration
	for _, name := range []string{"retry-after-ms", "x-ms-retry-after-ms"} {
		if ms, ok := parseCount(h.Get(name)); ok {
			d = max(d, time.Duration(ms)*time.Millisecond)
		}
	}
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if s, ok := parseCount(v); ok {
			d = max(d, time.Duration(s)*time.Second)
		} else if t, err := http.ParseTime(v); err == nil {
			d = max(d, t.Sub(now))
		}
	}
	return d
}

// parseCount parses a non-negative decimal count. Huge values are clipped to
// 2^32 so that multiplying by time.Second cannot overflow; the policy's
// MaxInterval caps the wait long before that.
func parseCount(v string) (int64, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil && !errors.Is(err, strconv.ErrRange) {
		return 0, false
	}
	if n < 0 {
		return 0, false
	}
	return min(n, 1<<32), true
}

// headerOf returns the response headers carried by err, if any.
func headerOf(err error) http.Header {
	var re *azcore.ResponseError
	if errors.As(err, &re) && re.RawResponse != nil {
		return re.RawResponse.Header
	}
	return nil
}
