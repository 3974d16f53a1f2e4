package query

import (
	"errors"

	"github.com/tablekit/tablekit/internal/errmap"
)

// checkContinuation refuses a continuation that the next request cannot
// follow: one equal to the request's own (the same page again, forever) or
// a NextRowKey without a NextPartitionKey (a row of no partition).
func checkContinuation(requested, next position) error {
	if next.Done {
		return nil
	}
	if next.NextPartitionKey == nil {
		return errmap.Unavailable("query", 1, errors.New("the service returned a continuation that cannot be followed: NextRowKey without NextPartitionKey"))
	}
	if equalKey(requested.NextPartitionKey, next.NextPartitionKey) && equalKey(requested.NextRowKey, next.NextRowKey) {
		return errmap.Unavailable("query", 1, errors.New("the service returned a continuation that cannot be followed: it repeats the request's own continuation"))
	}
	return nil
}

func equalKey(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
