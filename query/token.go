package query

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/tablekit/tablekit/internal/errmap"
)

// Continuation tokens
//
// A token is base64url (no padding) of a small JSON object:
//
//	{"v":1,"q":"<binding>", <position>}             one query
//	{"v":1,"q":"<binding>","s":[<position>, ...]}   parallel segments
//
// "v" is 2 when a position holds a count skip ("n", "h" below), which a
// reader of version 1 would ignore and so repeat entities: such a reader
// refuses the token instead. Tokens without one stay version 1, as before.
//
// The binding is the first 12 bytes of SHA-256 over a domain tag, the table
// name, the $filter and the $select of the query (for parallel runs: the base
// filter and every segment's filter), so a token given to another query is
// tablekit.ErrInvalid instead of silently wrong data. PageSize and Limit are not
// bound: they may change between runs.
//
// A position is where to continue:
//
//	"p","r"  the service's NextPartitionKey / NextRowKey to send (absent:
//	         from the beginning; "p" without "r" is a valid service position)
//	"ak","ar" the keys of the last entity already returned: entities from
//	         the position up to and including these keys are skipped
//	"n","h"  a count skip: the first n entities of the page at the position
//	         were returned, and h is a digest of their keys in order
//	"d"      true: nothing is left
//
// At a page boundary a position is the service's continuation alone, which
// needs nothing from the entities' order. In the middle of a page (a break or
// an error in the loop) it is the continuation the page was fetched with and
// what of the page was returned; resuming re-reads at most one page. On a
// backend that returns entities in (PartitionKey, RowKey) order (Azure Table
// Storage, Azurite) it skips by key the entities up to the last returned
// one, which survives inserts and deletes between runs. The Cosmos DB Table
// API does not promise that order, so there it counts: the page read again
// must start with the same entities, checked against the digest, and they
// are skipped; when it does not, the token is refused (tablekit.ErrPositionLost)
// rather than skip or repeat entities. A key skip on such a backend is
// refused before any request.
//
// Tokens are not encrypted or signed. They contain key values; handing one
// to a client reveals them. A client that edits a token can only move its
// position within the same query.

// Token versions: 2 when a position holds a count skip.
const (
	tokenVersion          = 1
	tokenVersionCountSkip = 2
)

// tokenJSON is a token's content; its tags are the format, read back from
// tokens that callers have stored.
type tokenJSON struct {
	Version  int        `json:"v"`
	Binding  string     `json:"q"`
	position            // one query
	Segments []position `json:"s,omitempty"`
}

func binding(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:%s;", len(p), p)
	}
	return base64.RawURLEncoding.EncodeToString(h.Sum(nil)[:12])
}

func encodeToken(t tokenJSON) string {
	t.Version = tokenVersion
	if t.position.Skip > 0 || slices.ContainsFunc(t.Segments, func(p position) bool { return p.Skip > 0 }) {
		t.Version = tokenVersionCountSkip
	}
	b, err := json.Marshal(t)
	if err != nil { // cannot happen: strings and bools only
		panic("query: encoding token: " + err.Error())
	}
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeToken(s, bind string) (tokenJSON, error) {
	var t tokenJSON
	raw, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return t, errmap.Invalid("query", "token", "not base64url")
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return t, errmap.Invalid("query", "token", "malformed")
	}
	if t.Version != tokenVersion && t.Version != tokenVersionCountSkip {
		return t, errmap.Invalidf("query", "token", "version %d, this library reads versions %d and %d", t.Version, tokenVersion, tokenVersionCountSkip)
	}
	if t.Version == tokenVersion && (t.position.Skip != 0 || t.position.Digest != "" || slices.ContainsFunc(t.Segments, func(p position) bool { return p.Skip != 0 || p.Digest != "" })) {
		return t, errmap.Invalidf("query", "token", "a count skip in a version %d token", tokenVersion)
	}
	if t.Binding != bind {
		return t, errTokenMismatch
	}
	if !t.position.valid() {
		return t, errmap.Invalid("query", "token", "inconsistent position")
	}
	for _, p := range t.Segments {
		if !p.valid() {
			return t, errmap.Invalid("query", "token", "inconsistent segment position")
		}
	}
	return t, nil
}
