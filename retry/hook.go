package retry

import (
	"context"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/internal/wire"
)

// Event describes one retry, for [Policy.OnRetry].
type Event struct {
	// Attempt is the number of the attempt that just failed: 1 for the first,
	// so the retry about to happen is attempt Attempt+1.
	Attempt int
	// Delay is how long the policy waits before that retry: 0 for the
	// immediate retry of a broken connection, at least a server's Retry-After
	// (capped by MaxInterval) when it sent one, the backoff otherwise.
	Delay time.Duration
	// Status and Code are the HTTP status and service error code of the
	// failed attempt; 0 and "" for a transport error.
	Status int
	Code   string
	// Err is the failure: a *tablekit.ServiceError (errors.Is finds
	// tablekit.ErrThrottled for a 429 or 503) or a transport error; from Do,
	// op's error as op returned it.
	Err error
	// Method and Path identify the request when known (the pipeline policy
	// always knows). Path never includes the query string, so a SAS
	// signature cannot leak through it.
	Method, Path string
}

// newEvent fills Status, Code, Method and Path from err.
func newEvent(attempt int, delay time.Duration, err error) Event {
	ev := Event{Attempt: attempt, Delay: delay, Err: err}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		ev.Status, ev.Code = re.StatusCode, re.ErrorCode
		var se *tablekit.ServiceError
		if !errors.As(err, &se) {
			ev.Err = errmap.Service("retry", -1, re, err)
		}
		if req := requestOf(re); req != nil {
			ev.Method, ev.Path = req.Method, req.URL.Path
		}
		return ev
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		ev.Method = strings.ToUpper(ue.Op)
		if u, perr := url.Parse(ue.URL); perr == nil {
			ev.Path = u.Path
		}
	}
	return ev
}

// SlogHook returns an OnRetry hook that logs each retry at level Warn on l
// (nil means slog.Default()). Query strings are removed from everything it
// logs, so SAS signatures never reach the log.
func SlogHook(l *slog.Logger) func(Event) {
	return func(ev Event) {
		logger := l
		if logger == nil {
			logger = slog.Default()
		}
		attrs := []slog.Attr{
			slog.Int("attempt", ev.Attempt),
			slog.Duration("delay", ev.Delay),
			slog.Int("status", ev.Status),
			slog.String("code", ev.Code),
			slog.String("method", ev.Method),
			slog.String("path", ev.Path),
		}
		var re *azcore.ResponseError
		if ev.Err != nil && !errors.As(ev.Err, &re) {
			// A response error's text is a multi-line dump of the body;
			// status and code say it all. Transport errors are short.
			attrs = append(attrs, slog.String("error", wire.RedactText(ev.Err.Error())))
		}
		logger.LogAttrs(context.Background(), slog.LevelWarn, "retry: retrying request", attrs...)
	}
}
