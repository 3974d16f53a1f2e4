package txwire

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/internal/wire"
)

// The body aztables v1.4.1 writes (transactional_batch.go), with B and C the
// batch and changeset boundaries "batch_<uuid>" and "changeset_<uuid>":
//
//	--B CRLF
//	Content-Type: multipart/mixed; boundary=C CRLF
//	CRLF
//	--C CRLF                           (CRLF --C CRLF before every later part)
//	Content-Transfer-Encoding: binary CRLF
//	Content-Type: application/http CRLF
//	CRLF
//	METHOD URL HTTP/1.1 CRLF
//	Header: value CRLF ...             (sorted; see opHeaders)
//	CRLF
//	entity JSON                        (none for Delete)
//	CRLF --C-- CRLF
//	CRLF --B-- CRLF
//
// A UUID has 36 characters in its text form, so the envelope has a fixed size.
const uuidLen = 36

var (
	batchBoundary     = "batch_" + strings.Repeat("0", uuidLen)
	changesetBoundary = "changeset_" + strings.Repeat("0", uuidLen)

	// envelope: everything but the parts, counting the first part's
	// delimiter as if it had the leading CRLF of the others (hence -2).
	envelope = len("--"+batchBoundary+"\r\n") +
		len("Content-Type: multipart/mixed; boundary="+changesetBoundary+"\r\n") +
		len("\r\n") +
		len("\r\n--"+changesetBoundary+"--\r\n") +
		len("\r\n--"+batchBoundary+"--\r\n") - 2

	// delimiterLen: the line before every part (DelimiterLen).
	delimiterLen = len("\r\n--" + changesetBoundary + "\r\n")

	// partOverhead: a part's delimiter and MIME headers.
	partOverhead = len("\r\n--"+changesetBoundary+"\r\n") +
		len("Content-Transfer-Encoding: binary\r\n") +
		len("Content-Type: application/http\r\n") +
		len("\r\n")
)

// Envelope is the size of a transaction body without its operations: the
// body of n operations has Envelope + the sum of their OpSize bytes.
func Envelope() int { return envelope }

// Op is one operation as aztables receives it.
type Op struct {
	Type aztables.TransactionType
	// PartitionKey and RowKey are the entity's keys (aztables reads them
	// from the entity JSON; they go into the URL).
	PartitionKey, RowKey string
	// IfMatch is the If-Match value; nil means none (for Delete aztables
	// then sends "*").
	IfMatch *string
	// EntityLen is the length of the entity JSON that aztables sends: that
	// of Canonical(entity), which CanonicalLen computes. Ignored for
	// Delete, which has no body.
	EntityLen int
}

// Sizer computes the exact number of bytes aztables v1.4.1 sends for the
// operations of a transaction on one table of one client.
type Sizer struct {
	endpoint string
	table    string
	// mergeAsPost: merges go as POST with X-HTTP-Method: MERGE, as aztables
	// sends them to Cosmos DB.
	mergeAsPost bool
	// query is the request URL's query re-encoded as aztables does it,
	// without and with $format: it depends on the endpoint only.
	query [2]string
	// keyed holds, without and with $format, the URL of an operation on one
	// entity split around its keys, for keys that no step of the URL's
	// making changes (plainKey): keyed[f][0] + pk + "',RowKey='" + rk +
	// keyed[f][1]. Empty where the endpoint's URL does not split so.
	keyed [2][2]string
	// addURL is the URL of every Add: it names no entity.
	addURL string
}

// NewSizer returns a Sizer for the table behind a client whose endpoint is
// endpoint: the URL aztables was given for the service, with a SAS query
// when the client has one (see EndpointOf). mergeAsPost is the backend's
// form of a merge (backend.Profile.MergeAsPost).
func NewSizer(endpoint, table string, mergeAsPost bool) *Sizer {
	s := &Sizer{endpoint: endpoint, table: table, mergeAsPost: mergeAsPost}
	if u, err := url.Parse(runtime.JoinPaths(endpoint, "/t")); err == nil {
		q := u.Query()
		s.query[0] = q.Encode()
		q.Set("$format", wire.MinimalMetadata)
		s.query[1] = q.Encode()
	} // else every URL fails on the same endpoint
	s.addURL, _ = s.url(tablePath(table), true)
	// The URL made the slow way for template keys, cut around them: it
	// holds for any plain keys, which every step passes through as they are.
	for f := range s.keyed {
		u, err := s.url(keyedPath(table, "0", "1"), f == 1)
		tail := "')"
		if s.query[f] != "" {
			tail += "?" + s.query[f]
		}
		if head, ok := strings.CutSuffix(u, "(PartitionKey='0',RowKey='1"+tail); ok && err == nil {
			s.keyed[f] = [2]string{head + "(PartitionKey='", tail}
		}
	}
	return s
}

// OpSize returns the bytes op adds to the body: its part delimiter, MIME
// headers, request line, request headers and entity.
func (s *Sizer) OpSize(op Op) (int, error) {
	var buf [512]byte
	line, err := s.appendRequestLine(buf[:0], op)
	if err != nil {
		return 0, err
	}
	n := partOverhead + len(line)
	body := op.EntityLen
	if op.Type == aztables.TransactionTypeDelete {
		body = 0
	}
	var hb [maxHeaders]header
	for _, h := range s.opHeaders(hb[:0], op, body) {
		n += len(h.key) + len(": ") + h.len() + len("\r\n")
	}
	return n + len("\r\n") + body, nil
}

// header is a header line's key and value; num, when above 0, is the
// value in decimal instead (Content-Length: writing it costs no string).
type header struct {
	key, value string
	num        int
}

// len is the length of the value as written.
func (h header) len() int {
	if h.num <= 0 {
		return len(h.value)
	}
	n := 1
	for v := h.num; v >= 10; v /= 10 {
		n++
	}
	return n
}

// appendValue appends the value as written.
func (h header) appendValue(dst []byte) []byte {
	if h.num <= 0 {
		return append(dst, h.value...)
	}
	return strconv.AppendInt(dst, int64(h.num), 10)
}

// maxHeaders is the most header lines an operation has.
const maxHeaders = 7

// opHeaders appends the header lines aztables writes for op to dst, in the
// order aztables writes them: sorted by key, bytewise (so the capitalised
// keys come first). aztables writes h.Get(k) for each key k: the generated
// client stores x-ms-version and DataServiceVersion under non-canonical
// keys, so Get finds nothing and both lines go out with empty values. The
// values here are what is written.
func (s *Sizer) opHeaders(dst []header, op Op, body int) []header {
	accept := wire.MinimalMetadata
	if op.Type != aztables.TransactionTypeDelete && op.Type != aztables.TransactionTypeAdd {
		accept = "application/json"
	}
	dst = append(dst, header{key: "Accept", value: accept})
	if op.Type != aztables.TransactionTypeDelete && body > 0 {
		dst = append(dst, header{key: "Content-Length", num: body}, header{key: "Content-Type", value: "application/json"})
	}
	dst = append(dst, header{key: "DataServiceVersion"})
	switch {
	case op.IfMatch != nil && op.Type != aztables.TransactionTypeAdd:
		dst = append(dst, header{key: "If-Match", value: *op.IfMatch})
	case op.Type == aztables.TransactionTypeDelete:
		dst = append(dst, header{key: "If-Match", value: "*"})
	}
	if op.Type == aztables.TransactionTypeAdd {
		dst = append(dst, header{key: "Prefer", value: "return-no-content"})
	}
	if s.mergeAsPost && isMerge(op.Type) {
		dst = append(dst, header{key: "X-Http-Method", value: "MERGE"})
	}
	return append(dst, header{key: "x-ms-version"})
}

func isMerge(t aztables.TransactionType) bool {
	return t == aztables.TransactionTypeUpdateMerge || t == aztables.TransactionTypeInsertMerge
}

// appendRequestLine appends "METHOD URL HTTP/1.1\r\n", the URL as
// aztables' generated client makes it.
func (s *Sizer) appendRequestLine(dst []byte, op Op) ([]byte, error) {
	var method string
	keyed, format := true, false
	switch op.Type {
	case aztables.TransactionTypeDelete:
		method, format = http.MethodDelete, true
	case aztables.TransactionTypeAdd:
		method, keyed, format = http.MethodPost, false, true
	case aztables.TransactionTypeUpdateMerge, aztables.TransactionTypeInsertMerge:
		method = http.MethodPatch
		if s.mergeAsPost {
			method = http.MethodPost
		}
	case aztables.TransactionTypeUpdateReplace, aztables.TransactionTypeInsertReplace:
		method = http.MethodPut
	default:
		return dst, fmt.Errorf("txwire: unknown transaction type %q", op.Type)
	}
	if keyed && op.PartitionKey == "" {
		return dst, errors.New("txwire: empty PartitionKey")
	}
	f := 0
	if format {
		f = 1
	}
	dst = append(dst, method...)
	dst = append(dst, ' ')
	switch k := s.keyed[f]; {
	case !keyed && s.addURL != "":
		dst = append(dst, s.addURL...)
	case keyed && k[0] != "" && plainKey(op.PartitionKey) && plainKey(op.RowKey):
		dst = append(dst, k[0]...)
		dst = append(dst, op.PartitionKey...)
		dst = append(dst, "',RowKey='"...)
		dst = append(dst, op.RowKey...)
		dst = append(dst, k[1]...)
	default:
		path := tablePath(s.table)
		if keyed {
			path = keyedPath(s.table, op.PartitionKey, op.RowKey)
		}
		u, err := s.url(path, format)
		if err != nil {
			return dst, err
		}
		dst = append(dst, u...)
	}
	return append(dst, " HTTP/1.1\r\n"...), nil
}

// plainKey reports whether k has only characters that no step of making
// the URL changes: ASCII letters and digits, '-', '.', '_' and '~'.
func plainKey(k string) bool {
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

// tablePath and keyedPath are the generated client's paths: for the table,
// and for one of its entities.
func tablePath(table string) string { return "/" + url.PathEscape(table) }

func keyedPath(table, pk, rk string) string {
	return tablePath(table) + "(PartitionKey='" + url.PathEscape(pk) + "',RowKey='" + url.PathEscape(rk) + "')"
}

// url is path on the endpoint as runtime.NewRequest makes it (http.NewRequest's
// parse and its removal of an empty port, azcore's checks), without building
// a request, with the endpoint's query and, when format is set, $format.
func (s *Sizer) url(path string, format bool) (string, error) {
	u, err := url.Parse(runtime.JoinPaths(s.endpoint, path))
	if err == nil && u.Host == "" {
		err = errors.New("no Host in request URL")
	}
	if err == nil && u.Scheme != "http" && u.Scheme != "https" {
		err = fmt.Errorf("unsupported protocol scheme %s", u.Scheme)
	}
	if err != nil {
		return "", fmt.Errorf("txwire: request URL: %w", err)
	}
	if h, ok := strings.CutSuffix(u.Host, ":"); ok {
		u.Host = h
	}
	u.RawQuery = s.query[0]
	if format {
		u.RawQuery = s.query[1]
	}
	return u.String(), nil
}

// Canonical returns entity JSON as aztables sends it: aztables decodes the
// entity into a map[string]any and the generated client encodes that map
// again with encoding/json, which sorts the properties, escapes <, > and &,
// and writes numbers in its own way. The canonical form is a fixed point of
// that round trip. Its length is what goes on the wire; CanonicalLen
// computes it faster.
func Canonical(entity []byte) ([]byte, error) {
	var m map[string]any
	if err := json.Unmarshal(entity, &m); err != nil {
		return nil, fmt.Errorf("txwire: entity is not a JSON object: %w", err)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("txwire: entity: %w", err)
	}
	return b, nil
}

// KeysJSON is the entity aztables needs for a Delete: only the keys.
func KeysJSON(partitionKey, rowKey string) []byte {
	b, _ := json.Marshal(map[string]string{"PartitionKey": partitionKey, "RowKey": rowKey})
	return b
}

// EndpointOf is the endpoint an aztables v1.4.1 client made from a table
// URL builds its request URLs from (its parseURL): the URL without the
// table's segment, then "/?" and the re-encoded query when there is one.
func EndpointOf(tableURL *url.URL) string {
	ep := tableURL.Scheme + "://" + tableURL.Host
	if i := strings.LastIndexByte(tableURL.Path, '/'); i > 0 {
		ep += tableURL.Path[:i]
	}
	if q := tableURL.Query(); len(q) > 0 {
		ep += "/?" + q.Encode()
	}
	return ep
}

// FallbackEndpoint stands in for an endpoint tablekit does not know (a
// client given to table.Wrap): 2 KiB of URL, longer than any account URL with a SAS, so sizes
// computed with it are upper bounds (by 2 KiB per operation at most, plus
// 22 bytes for the Cosmos DB merge header, which it includes).
func FallbackEndpoint() string {
	return "https://fallback.table.cosmos.invalid/" + strings.Repeat("x", 2048)
}
