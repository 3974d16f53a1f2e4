package faults

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// Continuation is how GarbleContinuation changes the continuation of a query
// reply (its x-ms-continuation-NextPartitionKey and NextRowKey headers).
type Continuation uint8

const (
	// ContinuationFirstKey names the page's first entity: on a page of two
	// entities or more, a continuation that goes backwards.
	ContinuationFirstKey Continuation = iota + 1
	// ContinuationLastKey names the page's last entity: not past it.
	ContinuationLastKey
	// ContinuationTruncated cuts each header short, to a length no base64
	// text has (4n+1 characters): a value that cannot be parsed.
	ContinuationTruncated
	// ContinuationDropped removes both headers: the reply says the query is
	// done while more data exists.
	ContinuationDropped
	// ContinuationEmptyPage empties the page and names its first entity: a
	// short page that the service may send, which loses nothing.
	ContinuationEmptyPage
	// ContinuationEmptyBackwards empties the page and names the start of
	// the request's own partition (its NextPartitionKey without its
	// NextRowKey): an empty page that goes backwards. It applies to requests
	// that carry both; others are forwarded unchanged.
	ContinuationEmptyBackwards
)

// String names the change for test logs.
func (c Continuation) String() string {
	switch c {
	case ContinuationFirstKey:
		return "first key"
	case ContinuationLastKey:
		return "last key"
	case ContinuationTruncated:
		return "truncated"
	case ContinuationDropped:
		return "dropped"
	case ContinuationEmptyPage:
		return "empty page"
	case ContinuationEmptyBackwards:
		return "empty page, backwards"
	}
	return fmt.Sprintf("Continuation(%d)", uint8(c))
}

// GarbleContinuation forwards the request and changes the continuation of
// the reply as how says, when the reply is a successful query page that
// has one (and, for the kinds that name an entity, has entities); any other
// reply is forwarded unchanged. Keys are written as Azurite writes them.
func GarbleContinuation(how Continuation) Fault {
	return Fault{kind: kindContinuation, cont: how}
}

// ContinuationTo forwards the request and makes the continuation of a
// successful query page that has one name the key (partitionKey, rowKey):
// for example a key past the end of the query's range. An empty rowKey
// sends no NextRowKey.
func ContinuationTo(partitionKey, rowKey string) Fault {
	return Fault{kind: kindContinuation, pk: partitionKey, rk: rowKey}
}

// Headers of a query page's continuation, as http.Header keys them.
const (
	hdrNextPK = "X-Ms-Continuation-Nextpartitionkey"
	hdrNextRK = "X-Ms-Continuation-Nextrowkey"
)

// continuationKey writes a key as Azurite does: the plain base64 of its
// UTF-8 (internal/wire.ParseContinuation reads it, and the service's form).
func continuationKey(key string) string { return base64.StdEncoding.EncodeToString([]byte(key)) }

// garbleContinuation sends the client the recorded reply with its
// continuation changed as f says.
func garbleContinuation(w http.ResponseWriter, r *http.Request, rec *recordWriter, f Fault) {
	h := w.Header()
	for k, vs := range rec.h {
		h[k] = append([]string(nil), vs...)
	}
	body := rec.body
	if rec.status == http.StatusOK && h.Get(hdrNextPK) != "" {
		body = changeContinuation(h, r, body, f)
	}
	h.Set("Content-Length", fmt.Sprint(len(body)))
	w.WriteHeader(rec.status)
	_, _ = w.Write(body)
}

// changeContinuation changes h's continuation and returns the body to send.
func changeContinuation(h http.Header, r *http.Request, body []byte, f Fault) []byte {
	set := func(pk, rk string) {
		h.Set(hdrNextPK, continuationKey(pk))
		if rk == "" {
			h.Del(hdrNextRK)
		} else {
			h.Set(hdrNextRK, continuationKey(rk))
		}
	}
	if f.cont == 0 { // ContinuationTo
		set(f.pk, f.rk)
		return body
	}
	var page struct {
		Value []struct{ PartitionKey, RowKey string }
	}
	_ = json.Unmarshal(body, &page) // no entities: nothing to name
	n := len(page.Value)
	empty := []byte(`{"value":[]}`)
	switch f.cont {
	case ContinuationFirstKey, ContinuationLastKey, ContinuationEmptyPage:
		if n == 0 {
			return body
		}
		e := page.Value[0]
		if f.cont == ContinuationLastKey {
			e = page.Value[n-1]
		}
		set(e.PartitionKey, e.RowKey)
		if f.cont == ContinuationEmptyPage {
			return empty
		}
	case ContinuationTruncated:
		for _, k := range []string{hdrNextPK, hdrNextRK} {
			if v := strings.TrimRight(h.Get(k), "="); len(v) >= 2 {
				h.Set(k, v[:(len(v)-2)/4*4+1])
			}
		}
	case ContinuationDropped:
		h.Del(hdrNextPK)
		h.Del(hdrNextRK)
	case ContinuationEmptyBackwards:
		q := r.URL.Query()
		if q.Get("NextPartitionKey") == "" || q.Get("NextRowKey") == "" {
			return body
		}
		h.Set(hdrNextPK, q.Get("NextPartitionKey"))
		h.Del(hdrNextRK)
		return empty
	}
	return body
}
