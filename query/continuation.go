package query

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/internal/wire"
)

// A continuation is followed only when it moves the query forward, so that
// a reply garbled on its way (by a proxy, a middlebox, a bug) can neither
// repeat entities nor end the query early without an error. On every
// backend it must differ from the request's own and name a partition with
// any row. With key order it must also name a key (wire.ParseContinuation)
// strictly after the page's last entity (it may be the next entity itself),
// and not before the request's own continuation (an empty page's can only
// be checked so); one at or past the end of the query's key range (a
// parallel segment's included) ends the range (endsRange). A continuation
// of a version this package does not know (wire.ErrContinuationVersion) is
// followed unchecked, so a service that changes its form slows no query
// into a failure. A continuation that
// fails is not followed: the page is read again, as a broken reply is, and
// after continuationReads reads the query fails with tablekit.ErrUnavailable.

// continuationReads is how many times a page is read while its continuation
// cannot be followed: a garbled reply rarely repeats, a service that keeps
// sending one is better reported than waited on.
const continuationReads = 3

// continuationPause is the wait before the first read again; it doubles.
const continuationPause = 50 * time.Millisecond

// errBadContinuation marks the cause of a continuation that cannot be
// followed.
var errBadContinuation = errors.New("the service returned a continuation that cannot be followed")

func badContinuation(why string) error { return fmt.Errorf("%w: %s", errBadContinuation, why) }

// checkContinuation reports a continuation, next, of the page with keys
// fetched at from, that the query must not follow (an error wrapping
// errBadContinuation), nil otherwise. ordered says the backend returns key
// order and names keys in its continuations; kr is the query's key range.
func checkContinuation(ordered bool, kr keyRange, from, next position, keys []keyPair) error {
	if next.Done {
		return nil
	}
	if next.NextPartitionKey == nil {
		return badContinuation("NextRowKey without NextPartitionKey")
	}
	if equalKey(from.NextPartitionKey, next.NextPartitionKey) && equalKey(from.NextRowKey, next.NextRowKey) {
		return badContinuation("it repeats the request's own continuation")
	}
	if !ordered {
		return nil // Cosmos DB's continuations name no key
	}
	at, err := continuationKey(next)
	if errors.Is(err, wire.ErrContinuationVersion) {
		return nil // a form of a later service version: followed unchecked
	}
	if err != nil {
		return badContinuation("it cannot be parsed")
	}
	if len(keys) > 0 && compareKeys(at, keys[len(keys)-1]) <= 0 {
		return badContinuation("it does not point past the page's last entity")
	}
	if from.NextPartitionKey != nil {
		// from was checked when it arrived, or when its token was resumed.
		// The same key spelled another way is no step back (the
		// identical value is refused above).
		if was, err := continuationKey(from); err == nil && compareKeys(at, was) < 0 {
			return badContinuation("it points before the request's own continuation")
		}
	}
	return nil
}

// endsRange reports a continuation at or past the end of the query's key
// range (a parallel segment's included): nothing the query can return is
// left, so it is not followed. The service may name such a key, for
// example a partition server's boundary that is the range's end, and a
// scan that refused it would fail on every run; a garbled one that jumps
// there is of the kind no client can tell from a true one (docs/queries.md).
func endsRange(ordered bool, kr keyRange, next position) bool {
	if !ordered || next.Done || next.NextPartitionKey == nil {
		return false
	}
	at, err := continuationKey(next)
	return err == nil && kr.past(at)
}

// continuationKey is the key a service continuation names: a missing
// NextRowKey is the partition's first key, "".
func continuationKey(p position) (keyPair, error) {
	var k keyPair
	var err error
	if p.NextPartitionKey != nil {
		if k.pk, err = wire.ParseContinuation(*p.NextPartitionKey); err != nil {
			return k, err
		}
	}
	if p.NextRowKey != nil {
		k.rk, err = wire.ParseContinuation(*p.NextRowKey)
	}
	return k, err
}

// past reports a key after the end of the range: beyond the partition a
// query is fixed to, at or after the exclusive upper end of its
// PartitionKeys, or of its RowKeys within its partition. The range is never
// narrower than the filter (see Filter.keyRange), so a key past it is past
// every entity the query can return.
func (kr keyRange) past(k keyPair) bool {
	if kr.partition != nil {
		c := wire.CompareUTF16(k.pk, *kr.partition)
		return c > 0 || (c == 0 && kr.rk.HasHi && wire.CompareUTF16(k.rk, kr.rk.Hi) >= 0)
	}
	return kr.pk.HasHi && wire.CompareUTF16(k.pk, kr.pk.Hi) >= 0
}

// checkResumable refuses, before any request, a position whose service
// continuation a backend with key order cannot have sent.
func checkResumable(ordered bool, p position) error {
	if !ordered || p.NextPartitionKey == nil {
		return nil
	}
	if _, err := continuationKey(p); err != nil {
		return errmap.Invalid("query", "token", "its continuation names no key")
	}
	return nil
}

// readAgain waits before read number n+1 of a page whose continuation
// could not be followed; false when ctx ended first.
func readAgain(ctx context.Context, n int) bool {
	t := time.NewTimer(continuationPause << (n - 1))
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

func equalKey(a, b *string) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
