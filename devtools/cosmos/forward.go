package cosmos

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// forward sends r, with body, to Azurite and copies the answer back.
func (s *Server) forward(w http.ResponseWriter, r *http.Request, body []byte) {
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	if len(body) > 0 || r.Header.Get("Content-Length") != "" {
		r.Header.Set("Content-Length", strconv.Itoa(len(body)))
	}
	s.rp.ServeHTTP(w, r)
}

// send makes one request of its own to Azurite on behalf of r: same host
// and headers (the client's credentials: Shared Key Lite signs only the
// date and the path, a SAS rides in the query, a token in its header),
// the given method, path and query, and body.
func (s *Server) send(ctx context.Context, r *http.Request, method, pathQuery string, header http.Header, body []byte) (*http.Response, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, method, s.target.String()+pathQuery, bytes.NewReader(body))
	if err != nil {
		return nil, nil, err
	}
	req.Host = strings.ToLower(r.Host)
	for k, vs := range header {
		req.Header[k] = append([]string(nil), vs...)
	}
	req.Header.Del("Content-Length")
	req.ContentLength = int64(len(body))
	resp, err := s.tr.RoundTrip(req)
	if err != nil {
		return nil, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, b, err
}

// writeResponse copies a response received by send to the client, with
// body in place of the one it had.
func writeResponse(w http.ResponseWriter, resp *http.Response, body []byte) {
	h := w.Header()
	for k, vs := range resp.Header {
		if k == "Content-Length" || k == "Connection" || k == "Keep-Alive" || k == "Transfer-Encoding" {
			continue
		}
		h[k] = append([]string(nil), vs...)
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(resp.StatusCode)
	_, _ = w.Write(body)
}

// upstreamFailed answers 502, as a gateway does, when Azurite is not there.
func (s *Server) upstreamFailed(w http.ResponseWriter, r *http.Request, err error) {
	if r.Context().Err() != nil {
		closeConn(w)
		return
	}
	writeError(w, http.StatusBadGateway, "BadGateway", "The stand-in could not reach Azurite.")
}

// closeConn drops the client's connection without an answer.
func closeConn(w http.ResponseWriter) {
	if conn, _, err := http.NewResponseController(w).Hijack(); err == nil {
		_ = conn.Close()
	}
}

// drain reads what is left of the request body.
func drain(r *http.Request) { _, _ = io.Copy(io.Discard, io.LimitReader(r.Body, maxBody)) }
