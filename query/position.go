package query

import (
	"crypto/sha256"
	"encoding/base64"
	"strconv"
)

// position is where a consumer continues; its JSON is part of the
// continuation token (see token.go), so its tags must not change.
type position struct {
	// The service's continuation to request at; nil: from the beginning.
	NextPartitionKey *string `json:"p,omitempty"`
	NextRowKey       *string `json:"r,omitempty"`
	// Key skip, on a backend that keeps key order: the keys of the last
	// entity returned; entities from the continuation up to and including
	// them are skipped on resume.
	LastPartitionKey *string `json:"ak,omitempty"`
	LastRowKey       *string `json:"ar,omitempty"`
	// Count skip, without key order: the first Skip entities of the page at
	// the continuation were returned; Digest (pageDigest) is of their keys. A
	// page read again must start with them, or the position is lost.
	Skip   int    `json:"n,omitempty"`
	Digest string `json:"h,omitempty"`
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

// skipsByKey reports a position in the middle of a page that relies on key
// order.
func (p position) skipsByKey() bool { return p.LastPartitionKey != nil }

// valid reports whether a decoded position is one this package can make.
func (p position) valid() bool {
	if p.Done {
		return p.NextPartitionKey == nil && p.NextRowKey == nil && p.LastPartitionKey == nil && p.LastRowKey == nil && p.Skip == 0 && p.Digest == ""
	}
	if p.Skip < 0 || (p.Skip > 0) != (p.Digest != "") || (p.Skip > 0 && p.skipsByKey()) {
		return false
	}
	return (p.LastPartitionKey == nil) == (p.LastRowKey == nil) && (p.NextRowKey == nil || p.NextPartitionKey != nil)
}

// pageDigest is what a count skip checks a page read again against: the
// first 12 bytes of SHA-256 over the keys, each length-prefixed, base64url.
func pageDigest(keys []keyPair) string {
	h := sha256.New()
	var b []byte
	for _, k := range keys {
		b = strconv.AppendInt(b[:0], int64(len(k.pk)), 10)
		b = append(b, ':')
		b = append(b, k.pk...)
		b = strconv.AppendInt(b, int64(len(k.rk)), 10)
		b = append(b, ':')
		b = append(b, k.rk...)
		h.Write(b)
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:12])
}

// tracker is a consumer's position: it advances only when an entity is
// handed to the caller, never when one is merely fetched. On a backend
// that keeps key order a position in the middle of a page skips by key,
// which survives inserts and deletes between runs; on one that does not
// (Cosmos DB), it counts the entities handed out of the page and keeps the
// page's keys, from which Token computes the digest.
type tracker struct {
	ordered        bool
	position       position
	returnedInPage bool      // an entity of the current page was returned
	keys           []keyPair // unordered: the current page's keys
}

// keeps reports whether entity i of page is new: after the page's count
// skip, and, by key, after the position's last returned keys.
func (t *tracker) keeps(page pageKeys, i int) bool {
	if i < page.skip {
		return false
	}
	last, ok := t.position.lastReturned()
	return !ok || compareKeys(page.keys[i], last) > 0
}

// pageKeys is what a tracker reads of a page: its keys, and how many of its
// first entities were returned before (a count skip, checked by fetch).
type pageKeys struct {
	keys []keyPair
	skip int
}

// advanceTo records that entity i of a page fetched at from was returned.
func (t *tracker) advanceTo(from position, page pageKeys, i int) {
	t.returnedInPage = true
	if t.ordered {
		// The keys of a page are never changed once decoded: point at
		// them rather than copy two strings to the heap per entity.
		k := &page.keys[i]
		t.position = position{NextPartitionKey: from.NextPartitionKey, NextRowKey: from.NextRowKey, LastPartitionKey: &k.pk, LastRowKey: &k.rk}
		return
	}
	t.position = position{NextPartitionKey: from.NextPartitionKey, NextRowKey: from.NextRowKey, Skip: i + 1}
	t.keys = page.keys
}

// finishPage records that a page whose continuation is next was consumed to
// its end. With key order, entities beyond the page's continuation all sort
// after everything in the page, so the position becomes the bare
// continuation, unless nothing of the page was returned (all skipped, or
// empty): then the skip keys still apply. A count skip ends with its page.
func (t *tracker) finishPage(next position) {
	defer func() { t.returnedInPage, t.keys = false, nil }()
	if next.Done {
		t.position = position{Done: true}
		return
	}
	next = position{NextPartitionKey: next.NextPartitionKey, NextRowKey: next.NextRowKey}
	if t.ordered && !t.returnedInPage {
		next.LastPartitionKey, next.LastRowKey = t.position.LastPartitionKey, t.position.LastRowKey
	}
	t.position = next
}

// snapshot is the position, its count skip's digest computed.
func (t *tracker) snapshot() position {
	p := t.position
	if p.Skip > 0 && p.Digest == "" && p.Skip <= len(t.keys) {
		p.Digest = pageDigest(t.keys[:p.Skip])
		t.position.Digest = p.Digest
	}
	return p
}

// resumable refuses a position the backend cannot resume: a key skip
// without key order. segment is the parallel segment, -1 for a Cursor.
func (t *tracker) resumable(segment int, backend string) error {
	if !t.ordered && t.position.skipsByKey() {
		return positionLost(segment, "the token skips the entities of its page by key, which needs a backend that returns entities in key order, and "+backend+" does not promise it: resume from a token taken at a page boundary (Page.Token), or start again")
	}
	return nil
}
