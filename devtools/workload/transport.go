package workload

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// Service is an in-process policy.Transporter that answers the Table
// service's requests the way the service does, without a network: inserts
// get 201 Created with the entity echoed back, or 204 No Content when the
// request says Prefer: return-no-content; a query gets Page (one page, no
// continuation). It reads every request body in full, as a real transport
// sends it. It is safe for concurrent use once Page is set.
type Service struct {
	// Page is the body of every query response: {"value":[...]}.
	Page []byte
}

const (
	etag      = `W/"datetime'2024-03-01T08%3A00%3A00.1234567Z'"`
	timestamp = "2024-03-01T08:00:00.1234567Z"
)

// Do implements policy.Transporter.
func (s *Service) Do(req *http.Request) (*http.Response, error) {
	bp := bodies.Get().(*[]byte)
	body, err := readBody(req, *bp)
	defer func() { *bp = body[:0]; bodies.Put(bp) }() // no answer keeps it: Echo copies
	if err != nil {
		return nil, err
	}
	last := req.URL.Path[strings.LastIndexByte(req.URL.Path, '/')+1:]
	switch {
	case req.Method == http.MethodPost && last != "Tables" && last != "$batch":
		loc := req.URL.String() + "(PartitionKey='p',RowKey='r')"
		if strings.Contains(req.Header.Get("Prefer"), "return-no-content") {
			return respond(req, http.StatusNoContent, nil, "Etag", etag, "Location", loc, "Dataserviceid", loc, "Preference-Applied", "return-no-content"), nil
		}
		return respond(req, http.StatusCreated, Echo(body), "Etag", etag, "Location", loc, "Dataserviceid", loc, "Content-Type", jsonType), nil
	case req.Method == http.MethodPost && last == "$batch":
		return batchReply(req, body), nil
	case req.Method == http.MethodGet && strings.HasSuffix(last, "()"):
		return respond(req, http.StatusOK, s.Page, "Content-Type", jsonType), nil
	}
	return respond(req, http.StatusNotImplemented, nil), nil
}

// jsonType is the Content-Type of the service's JSON answers.
const jsonType = "application/json;odata=minimalmetadata;streaming=true;charset=utf-8"

// replyHeaders are the headers of every answer, as key, value pairs.
var replyHeaders = [...]string{
	"Cache-Control", "no-cache",
	"X-Ms-Request-Id", "6d1f3c2e-0002-0046-3b1f-6a8b2c000000",
	"X-Ms-Version", "2019-02-02",
	"X-Content-Type-Options", "nosniff",
	"Date", "Fri, 01 Mar 2024 08:00:00 GMT",
}

// readBody reads a request's body into buf, grown to its length at once,
// as a server reads a body of a known length into a buffer it reuses: the
// service's own work, counted with the client's, is kept small (io.ReadAll
// grew each transaction's body by doubling from 512 bytes, clearing every
// new buffer).
func readBody(req *http.Request, buf []byte) ([]byte, error) {
	if req.Body == nil {
		return buf[:0], nil
	}
	defer req.Body.Close()
	if n := req.ContentLength; n > 0 && n <= 64<<20 {
		if int64(cap(buf)) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		if _, err := io.ReadFull(req.Body, buf); err != nil {
			return buf, err
		}
		// On to the end, as net/http's transport writes a body of known
		// length: it copies the rest to io.Discard after the length, to
		// find a body longer than it said. A reader that sees its end
		// may be reused (core's transaction bodies are).
		_, err := io.Copy(io.Discard, req.Body)
		return buf, err
	}
	b, err := io.ReadAll(req.Body)
	if err != nil {
		return buf[:0], err
	}
	return b, nil
}

// bodies holds the buffers requests are read into.
var bodies = sync.Pool{New: func() any { return new([]byte) }}

// respond is an answer of status with body, its headers every answer's,
// Content-Length and pairs (key in its canonical form, as Header.Get looks
// it up: "Etag" for ETag, value, ...): the map made at its
// size and the values in one array, since the service's own work is
// counted with the client's.
func respond(req *http.Request, status int, body []byte, pairs ...string) *http.Response {
	n := len(replyHeaders)/2 + 1 + len(pairs)/2
	vals := make([]string, 0, n)
	h := make(http.Header, n)
	add := func(k, v string) {
		vals = append(vals, v)
		h[k] = vals[len(vals)-1 : len(vals) : len(vals)]
	}
	for i := 0; i < len(replyHeaders); i += 2 {
		add(replyHeaders[i], replyHeaders[i+1])
	}
	add("Content-Length", strconv.Itoa(len(body)))
	for i := 0; i+1 < len(pairs); i += 2 {
		add(pairs[i], pairs[i+1])
	}
	return &http.Response{
		Status:        statusLine(status),
		StatusCode:    status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        h,
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}
}

// statusLine is a response's Status for the codes the service answers.
func statusLine(status int) string {
	switch status {
	case http.StatusOK:
		return "200 OK"
	case http.StatusCreated:
		return "201 Created"
	case http.StatusAccepted:
		return "202 Accepted"
	case http.StatusNoContent:
		return "204 No Content"
	}
	return strconv.Itoa(status) + " " + http.StatusText(status)
}

// Echo is the service's 201 answer to an insert of entity (a JSON object):
// the entity with the metadata the service adds in front.
func Echo(entity []byte) []byte {
	var b bytes.Buffer
	b.Grow(len(entity) + 200)
	b.WriteString(`{"odata.metadata":"http://127.0.0.1:10002/devstoreaccount1/$metadata#bench/@Element",`)
	b.WriteString(`"odata.etag":`)
	b.WriteString(strconv.Quote(etag))
	b.WriteString(`,"Timestamp":"` + timestamp + `",`)
	if len(entity) > 2 {
		b.Write(entity[1:])
	} else {
		b.Truncate(b.Len() - 1)
		b.WriteByte('}')
	}
	return b.Bytes()
}

// Slow is Next (a Service, say) behind Delay of added latency per request: a
// client far from a service that costs nothing. The wait is a timer, so it
// costs the client no CPU.
type Slow struct {
	Next  policy.Transporter
	Delay time.Duration
}

// Do implements policy.Transporter.
func (s *Slow) Do(req *http.Request) (*http.Response, error) {
	t := time.NewTimer(s.Delay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-req.Context().Done():
		return nil, req.Context().Err()
	}
	return s.Next.Do(req)
}
