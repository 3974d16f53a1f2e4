package cosmos

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"hash/fnv"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// The Table API returns query results unsorted ([FAQ]: "Query results
// returned by the API for Table aren't sorted in partition key/row key
// order") and pages them with opaque continuations. The stand-in reads a
// query's whole result from Azurite when the query starts, orders it by the
// Order option, keeps it (a snapshot, as a consistent read would see it),
// and serves it in pages of $top with continuation values of its own: a
// page is a run of that order, not a key range, and a continuation names a
// position in it, not a key.

// maxQueries is how many query results the stand-in keeps; a continuation
// of one it dropped is refused.
const maxQueries = 256

// queryState is one query's result in the order served.
type queryState struct {
	id    uint64
	sig   string // table, $filter and $select: what a continuation must repeat
	seed  uint64
	meta  json.RawMessage // odata.metadata of Azurite's first page; nil without metadata
	head  http.Header     // Azurite's first page's headers
	rows  []row
	reads map[int]int // how often each continuation was read
}

// row is one entity: its identity (keys, or its JSON without them) and JSON.
type row struct {
	key string
	raw json.RawMessage
}

// queryCache keeps the newest maxQueries query results.
type queryCache struct {
	byID  map[uint64]*queryState
	order []uint64
}

func (c *queryCache) put(q *queryState) {
	if c.byID == nil {
		c.byID = map[uint64]*queryState{}
	}
	c.byID[q.id] = q
	c.order = append(c.order, q.id)
	if len(c.order) > maxQueries {
		delete(c.byID, c.order[0])
		c.order = c.order[1:]
	}
}

// query serves a Query Entities request.
func (s *Server) query(w http.ResponseWriter, r *http.Request, p path) {
	q := r.URL.Query()
	top := s.opts.PageSize
	if t := q.Get("$top"); t != "" {
		n, err := strconv.Atoi(t)
		if err != nil || n < 1 {
			s.forward(w, r, nil) // Azurite answers the bad $top
			return
		}
		top = n
	}
	sig := p.table + "\x00" + q.Get("$filter") + "\x00" + q.Get("$select")
	var st *queryState
	off := 0
	if npk := q.Get("NextPartitionKey"); npk != "" {
		id, o, ok := s.decodeToken(npk, q.Get("NextRowKey"))
		s.mu.Lock()
		st = s.queries.byID[id]
		s.mu.Unlock()
		if !ok || st == nil || st.sig != sig || o > len(st.rows) {
			s.bump(func(st *Stats) *int { return &st.Refused })
			writeError(w, http.StatusBadRequest, codeBadRequest, "The continuation token is not valid for this query.")
			return
		}
		off = o
	} else {
		var resp *http.Response
		var body []byte
		var err error
		st, resp, body, err = s.load(r, q, sig)
		if err != nil {
			s.upstreamFailed(w, r, err)
			return
		}
		if st == nil {
			writeResponse(w, resp, body)
			return
		}
	}

	s.mu.Lock()
	if n := st.reads[off]; n > 0 && s.opts.Order == Changing {
		st.reads[off]++
		st = s.branch(st, off, n)
	}
	st.reads[off]++
	end := min(off+top, len(st.rows))
	page := slices.Clone(st.rows[off:end])
	s.stats.QueryPages++
	s.mu.Unlock()

	var b bytes.Buffer
	b.WriteByte('{')
	if st.meta != nil {
		b.WriteString(`"odata.metadata":`)
		b.Write(st.meta)
		b.WriteByte(',')
	}
	b.WriteString(`"value":[`)
	for i, e := range page {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(e.raw)
	}
	b.WriteString("]}")
	h := w.Header()
	for k, vs := range st.head {
		h[k] = slices.Clone(vs)
	}
	h.Del("x-ms-continuation-NextPartitionKey")
	h.Del("x-ms-continuation-NextRowKey")
	h.Del("Content-Length")
	if end < len(st.rows) {
		npk, nrk := s.encodeToken(st.id, end)
		h.Set("x-ms-continuation-NextPartitionKey", npk)
		h.Set("x-ms-continuation-NextRowKey", nrk)
	}
	h.Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(b.Bytes())
}

// load reads a query's whole result from Azurite, following Azurite's own
// continuations, and orders it. A non-200 answer is returned for the client
// with a nil state.
func (s *Server) load(r *http.Request, q url.Values, sig string) (*queryState, *http.Response, []byte, error) {
	vals := url.Values{}
	for k, vs := range q {
		if k != "$top" && k != "NextPartitionKey" && k != "NextRowKey" {
			vals[k] = vs
		}
	}
	vals.Set("$top", "1000")
	st := &queryState{sig: sig, reads: map[int]int{}}
	for first := true; ; first = false {
		resp, body, err := s.send(r.Context(), r, http.MethodGet, r.URL.EscapedPath()+"?"+vals.Encode(), r.Header, nil)
		if err != nil {
			return nil, nil, nil, err
		}
		if resp.StatusCode != http.StatusOK {
			return nil, resp, body, nil
		}
		var page struct {
			Meta  json.RawMessage   `json:"odata.metadata"`
			Value []json.RawMessage `json:"value"`
		}
		if err := json.Unmarshal(body, &page); err != nil {
			return nil, nil, nil, err
		}
		if first {
			st.meta, st.head = page.Meta, resp.Header.Clone()
		}
		for _, e := range page.Value {
			st.rows = append(st.rows, row{key: identity(e), raw: e})
		}
		npk := resp.Header.Get("x-ms-continuation-NextPartitionKey")
		if npk == "" {
			break
		}
		vals.Set("NextPartitionKey", npk)
		if nrk := resp.Header.Get("x-ms-continuation-NextRowKey"); nrk != "" {
			vals.Set("NextRowKey", nrk)
		} else {
			vals.Del("NextRowKey")
		}
	}
	s.mu.Lock()
	s.querySeq++
	st.id = s.querySeq
	st.seed = s.opts.Seed
	if s.opts.Order == Changing {
		st.seed = mix(s.opts.Seed, s.querySeq)
	}
	s.mu.Unlock()
	reorder(st.rows, st.seed)
	s.mu.Lock()
	s.queries.put(st)
	s.mu.Unlock()
	return st, nil, nil, nil
}

// branch is what a continuation of st read for the n+1st time serves: the
// same result up to off, what is left in a new order, under a new id whose
// continuations follow that order. st itself is not changed, so a run still
// following st's continuations (a request of an abandoned run may arrive
// after a resumed one's) returns each entity once. Needs s.mu.
func (s *Server) branch(st *queryState, off, n int) *queryState {
	s.querySeq++
	b := &queryState{id: s.querySeq, sig: st.sig, seed: mix(st.seed, uint64(off)<<32|uint64(n)), meta: st.meta, head: st.head, rows: slices.Clone(st.rows), reads: map[int]int{}}
	reorder(b.rows[off:], b.seed)
	s.queries.put(b)
	return b
}

// identity is an entity's keys, or its whole JSON when a projection left
// them out.
func identity(e json.RawMessage) string {
	var k struct{ PartitionKey, RowKey *string }
	if json.Unmarshal(e, &k) == nil && k.PartitionKey != nil && k.RowKey != nil {
		return *k.PartitionKey + "\x00" + *k.RowKey
	}
	return string(e)
}

// reorder sorts rows by a hash of the seed and each row's identity.
func reorder(rows []row, seed uint64) {
	hash := func(key string) uint64 {
		h := fnv.New64a()
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], seed)
		h.Write(b[:])
		h.Write([]byte(key))
		return h.Sum64()
	}
	type keyed struct {
		h uint64
		r row
	}
	ks := make([]keyed, len(rows))
	for i, r := range rows {
		ks[i] = keyed{hash(r.key), r}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		if a.h != b.h {
			if a.h < b.h {
				return -1
			}
			return 1
		}
		return strings.Compare(a.r.key, b.r.key)
	})
	for i := range ks {
		rows[i] = ks[i].r
	}
}

// mix is splitmix64 of a^b: well spread seeds from counters.
func mix(a, b uint64) uint64 {
	z := a ^ b + 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// encodeToken makes the continuation values of position off in query id.
// They are opaque and, like the JSON-shaped values Cosmos DB is said to
// send (unconfirmed), need escaping in a URL: NextPartitionKey holds the
// position, NextRowKey a check of it; both must come back.
func (s *Server) encodeToken(id uint64, off int) (npk, nrk string) {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], id)
	binary.BigEndian.PutUint64(b[8:], uint64(off))
	npk = `{"token":"+RID:~` + base64.StdEncoding.EncodeToString(b[:]) + `#RT:1","range":{"min":"","max":"FF"}}`
	return npk, s.check(npk)
}

// decodeToken reads continuation values made by encodeToken.
func (s *Server) decodeToken(npk, nrk string) (id uint64, off int, ok bool) {
	if nrk != s.check(npk) {
		return 0, 0, false
	}
	inner, ok := strings.CutPrefix(npk, `{"token":"+RID:~`)
	if !ok {
		return 0, 0, false
	}
	inner, _, _ = strings.Cut(inner, "#")
	b, err := base64.StdEncoding.DecodeString(inner)
	if err != nil || len(b) != 16 {
		return 0, 0, false
	}
	return binary.BigEndian.Uint64(b[:8]), int(binary.BigEndian.Uint64(b[8:])), true
}

// check is a hash of a NextPartitionKey value keyed by the stand-in's
// address, so that values made up by a client are refused.
func (s *Server) check(npk string) string {
	h := fnv.New64a()
	h.Write([]byte(s.addr))
	h.Write([]byte(npk))
	return hex.EncodeToString(h.Sum(nil))
}
