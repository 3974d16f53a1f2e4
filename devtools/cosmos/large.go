package cosmos

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// Azurite refuses the body of an update, upsert or merge over 1 MiB
// (EntityTooLarge), also inside a changeset, while it inserts up to 4 MiB
// and Cosmos DB takes an entity up to 2 MiB on every verb. The stand-in
// writes such an entity in steps: the client's own request with the keys
// and a first share of the properties (so its If-Match, its upsert or
// update semantics and its credentials apply as sent), then the other
// shares as merges conditional on the ETag each step returned. The entity
// ends up exactly as Cosmos DB would store it, but not atomically: a reader
// can see it between steps, and a writer racing the steps makes a step
// fail (the stand-in then answers 500 StandInLargeWriteFailed).

// chunkMax is the most entity bytes per step, under Azurite's limit with
// room for the keys repeated in every step.
const chunkMax = azuriteEntityMax - 64<<10

// splitEntity cuts entity JSON into objects of at most chunkMax bytes, each
// with the keys; a property and its @odata.type annotation stay together.
func splitEntity(body []byte) ([][]byte, error) {
	var props map[string]json.RawMessage
	if err := json.Unmarshal(body, &props); err != nil {
		return nil, err
	}
	keys := map[string]json.RawMessage{}
	groups := map[string]map[string]json.RawMessage{}
	for name, v := range props {
		base, _, _ := strings.Cut(name, "@")
		if base == "PartitionKey" || base == "RowKey" {
			keys[name] = v
			continue
		}
		if groups[base] == nil {
			groups[base] = map[string]json.RawMessage{}
		}
		groups[base][name] = v
	}
	names := make([]string, 0, len(groups))
	for n := range groups {
		names = append(names, n)
	}
	slices.Sort(names)
	var chunks [][]byte
	cur, size := clone(keys), 0
	flush := func() error {
		b, err := json.Marshal(cur)
		if err != nil {
			return err
		}
		if len(b) > azuriteEntityMax {
			return errors.New("cosmos: a property is too large to write in steps")
		}
		chunks = append(chunks, b)
		cur, size = clone(keys), 0
		return nil
	}
	for _, n := range names {
		g := 0
		for k, v := range groups[n] {
			g += len(k) + len(v) + 4
		}
		if size > 0 && size+g > chunkMax {
			if err := flush(); err != nil {
				return nil, err
			}
		}
		for k, v := range groups[n] {
			cur[k] = v
		}
		size += g
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return chunks, nil
}

func clone(m map[string]json.RawMessage) map[string]json.RawMessage {
	out := make(map[string]json.RawMessage, len(m)+8)
	for k, v := range m {
		out[k] = v
	}
	return out
}

// largeWrite serves one update, upsert or merge of an entity over
// Azurite's 1 MiB limit, in steps.
func (s *Server) largeWrite(w http.ResponseWriter, r *http.Request, p path, body []byte) {
	chunks, err := splitEntity(body)
	if err != nil {
		s.forward(w, r, body) // not a JSON object: Azurite answers
		return
	}
	resp, reply, err := s.send(r.Context(), r, r.Method, r.URL.RequestURI(), r.Header, chunks[0])
	if err != nil {
		s.upstreamFailed(w, r, err)
		return
	}
	if resp.StatusCode >= 300 {
		writeResponse(w, resp, reply) // the client's own condition or credentials failed: nothing written
		return
	}
	for i, c := range chunks[1:] {
		h := r.Header.Clone()
		h.Del("X-HTTP-Method")
		h.Set("If-Match", resp.Header.Get("ETag"))
		resp, reply, err = s.send(r.Context(), r, http.MethodPatch, r.URL.RequestURI(), h, c)
		if err != nil || resp.StatusCode >= 300 {
			writeError(w, http.StatusInternalServerError, "StandInLargeWriteFailed", fmt.Sprintf("The entity was written in part: step %d of %d failed.", i+2, len(chunks)))
			return
		}
	}
	s.bump(func(st *Stats) *int { return &st.LargeWrites })
	writeResponse(w, resp, reply)
}

// largeOp is a changeset operation sent with its first share only.
type largeOp struct {
	index int
	op    *batchOp
	rest  [][]byte
}

// finishLarge writes the other shares of the changeset's large operations
// once the changeset committed, each as a changeset of one merge sent with
// the client's $batch credentials, and puts each operation's final ETag in
// the reply. A changeset that failed is returned as it is: nothing of it
// was written.
func (s *Server) finishLarge(r *http.Request, n int, large []*largeOp, reply []byte) ([]byte, error) {
	parts := scanReply(reply)
	for _, p := range parts {
		if p.status < 200 || p.status > 299 {
			return reply, nil
		}
	}
	if len(parts) != n {
		return nil, fmt.Errorf("stand-in: the changeset committed, but its reply has %d answers for %d operations", len(parts), n)
	}
	for _, l := range large {
		etag := parts[l.index].etag
		for _, c := range l.rest {
			op := &batchOp{method: http.MethodPatch, url: l.op.url, proto: l.op.proto, header: slices.Clone(l.op.header), body: c}
			op.set("If-Match", etag)
			op.set("Content-Length", strconv.Itoa(len(c)))
			one := &batchReq{batchBoundary: "batch_" + activityID(), changeset: "changeset_" + activityID(), ops: []*batchOp{op}}
			h := r.Header.Clone()
			h.Set("Content-Type", one.contentType())
			resp, b, err := s.send(r.Context(), r, http.MethodPost, r.URL.RequestURI(), h, one.encode())
			if err != nil {
				return nil, err
			}
			got := scanReply(b)
			if resp.StatusCode != http.StatusAccepted || len(got) != 1 || got[0].status > 299 || got[0].etag == "" {
				return nil, fmt.Errorf("stand-in: operation %d was committed in part; a later step got %d", l.index, resp.StatusCode)
			}
			etag = got[0].etag
		}
		parts[l.index].final = etag
	}
	s.bump(func(st *Stats) *int { return &st.LargeWrites })
	// Replace from the end, so that earlier offsets stay valid.
	out := slices.Clone(reply)
	for i := len(parts) - 1; i >= 0; i-- {
		p := parts[i]
		if p.final != "" && p.etagAt > 0 {
			out = slices.Concat(out[:p.etagAt], []byte(p.final), out[p.etagAt+len(p.etag):])
		}
	}
	return out, nil
}

// replyPart is one operation's answer in a $batch reply.
type replyPart struct {
	status int
	etag   string
	etagAt int    // offset of the ETag's value in the reply
	final  string // the ETag to put there
}

// scanReply finds each operation's status line ("HTTP/1.1 204 ...") and
// ETag header in a $batch reply, in order.
func scanReply(reply []byte) []replyPart {
	var parts []replyPart
	off := 0
	for off < len(reply) {
		end := bytes.IndexByte(reply[off:], '\n')
		if end < 0 {
			end = len(reply) - off
		}
		line := strings.TrimRight(string(reply[off:off+end]), "\r")
		if rest, ok := strings.CutPrefix(line, "HTTP/1.1 "); ok {
			code, _, _ := strings.Cut(rest, " ")
			st, _ := strconv.Atoi(code)
			parts = append(parts, replyPart{status: st})
		} else if len(parts) > 0 && len(line) > 5 && strings.EqualFold(line[:5], "etag:") {
			v := strings.TrimLeft(line[5:], " ")
			p := &parts[len(parts)-1]
			p.etag, p.etagAt = v, off+len(line)-len(v)
		}
		off += end + 1
	}
	return parts
}
