package query

import "fmt"

// checkContinuation refuses a continuation that the next request cannot
// follow: one equal to the request's own (the same page again, forever) or
// a NextRowKey without a NextPartitionKey (a row of no partition).
func checkContinuation(requested, next position) error {
	if next.Done {
		return nil
	}
	if next.NextPartitionKey == nil {
		return fmt.Errorf("%w: NextRowKey without NextPartitionKey", ErrBadContinuation)
	}
	if equalKey(requested.NextPartitionKey, next.NextPartitionKey) && equalKey(requested.NextRowKey, next.NextRowKey) {
		return fmt.Errorf("%w: it repeats the request's own continuation", ErrBadContinuation)
	}
	return nil
}

func equalKey(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
