package query

// position is where a consumer continues; its JSON is part of the
// continuation token (see token.go), so its tags must not change.
type position struct {
	// The service's continuation to request at; nil: from the beginning.
	NextPartitionKey *string `json:"p,omitempty"`
	NextRowKey       *string `json:"r,omitempty"`
	// The keys of the last entity returned: entities from the continuation
	// up to and including them are skipped on resume.
	LastPartitionKey *string `json:"ak,omitempty"`
	LastRowKey       *string `json:"ar,omitempty"`
	// Nothing is left.
	Done bool `json:"d,omitempty"`
}

// lastReturned returns the keys of the last entity returned, if any.
func (p position) lastReturned() (keyPair, bool) {
	if p.LastPartitionKey == nil || p.LastRowKey == nil {
		return keyPair{}, false
	}
	return keyPair{*p.LastPartitionKey, *p.LastRowKey}, true
}

// valid reports whether a decoded position is one this package can make.
func (p position) valid() bool {
	if p.Done {
		return p.NextPartitionKey == nil && p.NextRowKey == nil && p.LastPartitionKey == nil && p.LastRowKey == nil
	}
	return (p.LastPartitionKey == nil) == (p.LastRowKey == nil) && (p.NextRowKey == nil || p.NextPartitionKey != nil)
}

// tracker is a consumer's position: it advances only when an entity is
// handed to the caller, never when one is merely fetched.
type tracker struct {
	position       position
	returnedInPage bool // an entity of the current page was returned
}

// isNew reports whether the entity at k is new: not at or before the
// position's last returned keys.
func (t *tracker) isNew(k keyPair) bool {
	last, ok := t.position.lastReturned()
	return !ok || compareKeys(k, last) > 0
}

// advanceTo records that the entity at k was returned, from a page fetched
// at from.
func (t *tracker) advanceTo(from position, k keyPair) {
	pk, rk := k.pk, k.rk
	t.position = position{NextPartitionKey: from.NextPartitionKey, NextRowKey: from.NextRowKey, LastPartitionKey: &pk, LastRowKey: &rk}
	t.returnedInPage = true
}

// finishPage records that a page whose continuation is next was consumed to
// its end. Entities beyond the page's continuation all sort after everything
// in the page, so the position becomes the bare continuation, unless nothing
// of the page was returned (all skipped, or empty): then the skip keys still
// apply.
func (t *tracker) finishPage(next position) {
	if next.Done {
		t.position = position{Done: true}
		t.returnedInPage = false
		return
	}
	next = position{NextPartitionKey: next.NextPartitionKey, NextRowKey: next.NextRowKey}
	if !t.returnedInPage {
		next.LastPartitionKey, next.LastRowKey = t.position.LastPartitionKey, t.position.LastRowKey
	}
	t.position = next
	t.returnedInPage = false
}
