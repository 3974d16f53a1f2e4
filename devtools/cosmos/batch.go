package cosmos

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
)

// batchReq is a parsed $batch body: one changeset of operations.
type batchReq struct {
	batchBoundary, changeset string
	ops                      []*batchOp
}

// batchOp is one operation of a changeset: an HTTP request in text.
type batchOp struct {
	method, url, proto string
	header             []headerLine // in the order sent
	body               []byte
	path               path // of url
}

type headerLine struct{ key, value string }

// get returns the value of the header key (any case), or "".
func (op *batchOp) get(key string) string {
	for _, h := range op.header {
		if strings.EqualFold(h.key, key) {
			return h.value
		}
	}
	return ""
}

// set replaces the header key (any case), or adds it.
func (op *batchOp) set(key, value string) {
	for i, h := range op.header {
		if strings.EqualFold(h.key, key) {
			op.header[i].value = value
			return
		}
	}
	op.header = append(op.header, headerLine{key, value})
}

// del removes the header key (any case).
func (op *batchOp) del(key string) {
	kept := op.header[:0]
	for _, h := range op.header {
		if !strings.EqualFold(h.key, key) {
			kept = append(kept, h)
		}
	}
	op.header = kept
}

// merge reports a merge operation, in any of its three forms.
func (op *batchOp) merge() bool {
	return op.method == http.MethodPatch || op.method == "MERGE" ||
		(op.method == http.MethodPost && strings.EqualFold(strings.TrimSpace(op.get("X-HTTP-Method")), "MERGE"))
}

// parseBatch reads a $batch body of one changeset.
func parseBatch(contentType string, body []byte) (*batchReq, error) {
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil || params["boundary"] == "" {
		return nil, errors.New("cosmos: $batch without a multipart boundary")
	}
	b := &batchReq{batchBoundary: params["boundary"]}
	outer := multipart.NewReader(bytes.NewReader(body), b.batchBoundary)
	part, err := outer.NextPart()
	if err != nil {
		return nil, fmt.Errorf("cosmos: $batch: %w", err)
	}
	_, params, err = mime.ParseMediaType(part.Header.Get("Content-Type"))
	if err != nil || params["boundary"] == "" {
		return nil, errors.New("cosmos: $batch without a changeset")
	}
	b.changeset = params["boundary"]
	inner := multipart.NewReader(part, b.changeset)
	for {
		p, err := inner.NextPart()
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return nil, fmt.Errorf("cosmos: changeset: %w", err)
		}
		raw, err := io.ReadAll(p)
		if err != nil {
			return nil, fmt.Errorf("cosmos: changeset: %w", err)
		}
		op, err := parseOp(raw)
		if err != nil {
			return nil, err
		}
		b.ops = append(b.ops, op)
	}
}

// parseOp reads "METHOD URL HTTP/1.1", header lines, a blank line, a body.
func parseOp(raw []byte) (*batchOp, error) {
	head, body, ok := bytes.Cut(raw, []byte("\r\n\r\n"))
	if !ok {
		head, body, ok = bytes.Cut(raw, []byte("\n\n"))
	}
	if !ok {
		return nil, errors.New("cosmos: changeset operation without a blank line")
	}
	lines := strings.Split(strings.ReplaceAll(string(head), "\r\n", "\n"), "\n")
	f := strings.Fields(lines[0])
	if len(f) != 3 {
		return nil, fmt.Errorf("cosmos: changeset request line %q", lines[0])
	}
	op := &batchOp{method: f[0], url: f[1], proto: f[2], body: body}
	for _, l := range lines[1:] {
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			return nil, fmt.Errorf("cosmos: changeset header line %q", l)
		}
		op.header = append(op.header, headerLine{strings.TrimSpace(k), strings.TrimSpace(v)})
	}
	u, err := url.Parse(op.url)
	if err != nil {
		return nil, fmt.Errorf("cosmos: changeset URL: %w", err)
	}
	op.path = parsePath(u.Path)
	return op, nil
}

// encode writes the batch as aztables lays a $batch body out.
func (b *batchReq) encode() []byte {
	var w bytes.Buffer
	w.WriteString("--" + b.batchBoundary + "\r\nContent-Type: multipart/mixed; boundary=" + b.changeset + "\r\n\r\n")
	for i, op := range b.ops {
		if i > 0 {
			w.WriteString("\r\n")
		}
		w.WriteString("--" + b.changeset + "\r\nContent-Transfer-Encoding: binary\r\nContent-Type: application/http\r\n\r\n")
		w.WriteString(op.method + " " + op.url + " " + op.proto + "\r\n")
		for _, h := range op.header {
			w.WriteString(h.key + ": " + h.value + "\r\n")
		}
		w.WriteString("\r\n")
		w.Write(op.body)
	}
	w.WriteString("\r\n--" + b.changeset + "--\r\n\r\n--" + b.batchBoundary + "--\r\n")
	return w.Bytes()
}

// contentType is the Content-Type of the encoded body.
func (b *batchReq) contentType() string { return "multipart/mixed; boundary=" + b.batchBoundary }

// azuriteURL turns an operation's URL on the account's Cosmos DB host into
// Azurite's path-style URL: Azurite reads a changeset operation's table
// from the second segment of its URL's path.
func (s *Server) azuriteURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	out := s.target.String() + "/" + s.account + u.EscapedPath()
	if u.RawQuery != "" {
		out += "?" + u.RawQuery
	}
	return out
}

// batch serves a $batch request: Cosmos DB's size and key rules, then the
// changeset rewritten for Azurite (path-style URLs, POST with X-HTTP-Method:
// MERGE as MERGE, operations over Azurite's 1 MiB update limit cut in
// steps) and Azurite's answer.
func (s *Server) batch(w http.ResponseWriter, r *http.Request, body []byte) {
	if len(body) > s.profile.MaxTransactionBytes {
		s.bump(func(st *Stats) *int { return &st.TooLarge })
		writeError(w, http.StatusRequestEntityTooLarge, codeTooLarge, msgTooLarge)
		return
	}
	req, err := parseBatch(r.Header.Get("Content-Type"), body)
	if err != nil {
		s.forward(w, r, body) // Azurite answers what it makes of it
		return
	}
	for i, op := range req.ops {
		f := s.keyRule(op.path)
		if len(op.body) > 0 {
			f = s.entityRule(op.path, op.body)
		}
		if f != nil {
			s.count(f)
			writeBatchFailure(w, len(req.ops), i, f.status, f.code, f.message, "")
			return
		}
	}
	var large []*largeOp
	for i, op := range req.ops {
		if op.method == http.MethodPost && op.merge() {
			op.method = "MERGE"
			op.del("X-HTTP-Method")
		}
		op.url = s.azuriteURL(op.url)
		if (op.method == http.MethodPut || op.merge()) && len(op.body) > azuriteEntityMax {
			chunks, err := splitEntity(op.body)
			if err != nil {
				writeError(w, http.StatusBadRequest, codeBadRequest, "The entity is not a JSON object.")
				return
			}
			op.body = chunks[0]
			op.set("Content-Length", strconv.Itoa(len(op.body)))
			large = append(large, &largeOp{index: i, op: op, rest: chunks[1:]})
		}
	}
	h := r.Header.Clone()
	h.Set("Content-Type", req.contentType())
	resp, reply, err := s.send(r.Context(), r, http.MethodPost, r.URL.RequestURI(), h, req.encode())
	if err != nil {
		s.upstreamFailed(w, r, err)
		return
	}
	if len(large) > 0 && resp.StatusCode == http.StatusAccepted {
		reply, err = s.finishLarge(r, len(req.ops), large, reply)
		if err != nil {
			writeError(w, http.StatusInternalServerError, "StandInLargeWriteFailed", err.Error())
			return
		}
	}
	writeResponse(w, resp, reply)
}

// writeBatchFailure answers a $batch 202 Accepted whose changeset failed at
// operation failed, in the form Cosmos DB writes: the failing operation's
// status and error, its message prefixed by its index ("0:...", as
// azure-sdk-for-net #20533 quotes Cosmos DB), every other operation 424
// Failed Dependency, and no closing delimiters (the shape of
// internal/txwire's Cosmos DB reply fixture). retryAfterMs, when set, goes
// on the failing part and the response.
func writeBatchFailure(w http.ResponseWriter, n, failed, status int, code, message, retryAfterMs string) {
	batch, cs := "batchresponse_"+activityID(), "changesetresponse_"+activityID()
	var b bytes.Buffer
	b.WriteString("--" + batch + "\r\nContent-Type: multipart/mixed; boundary=" + cs + "\r\n\r\n")
	for i := range n {
		b.WriteString("--" + cs + "\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n")
		if i != failed {
			b.WriteString("HTTP/1.1 424 Failed Dependency\r\n\r\n\r\n")
			continue
		}
		b.WriteString("HTTP/1.1 " + strconv.Itoa(status) + " " + http.StatusText(status) + "\r\nContent-Type: application/json\r\n")
		if retryAfterMs != "" {
			b.WriteString("x-ms-retry-after-ms: " + retryAfterMs + "\r\n")
		}
		b.WriteString("\r\n")
		b.Write(cosmosError(code, strconv.Itoa(i)+":"+message))
		b.WriteString("\r\n")
	}
	h := w.Header()
	h.Set("Content-Type", "multipart/mixed; boundary="+batch)
	if retryAfterMs != "" {
		h.Set("x-ms-retry-after-ms", retryAfterMs)
	}
	h.Set("Content-Length", strconv.Itoa(b.Len()))
	w.WriteHeader(http.StatusAccepted)
	_, _ = w.Write(b.Bytes())
}
