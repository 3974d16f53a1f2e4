package txwire

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/textproto"
	"slices"
	"strconv"
	"strings"
)

// ErrMalformed is matched by every error of Parse: the reply is not a
// multipart transaction reply that can be read.
var ErrMalformed = errors.New("txwire: malformed transaction reply")

// Part is one operation's response inside a transaction reply.
type Part struct {
	// StatusCode and Status are from the part's status line, e.g. 409 and
	// "409 Conflict".
	StatusCode int
	Status     string
	// ETag is the part's ETag header, "" if none.
	ETag string
	// Body is the part's body, usually empty or an OData error.
	Body []byte
	// ContentID is the Content-ID of the part (from its MIME headers or
	// its HTTP headers), "" if none.
	ContentID string
	// header is the part's HTTP header lines, read by Header and Get: a
	// successful reply needs only the ETag, and maps of every part's
	// headers were a fifth of a transaction's client CPU.
	header []byte
	etag   []byte // ETag's text in the reply, until Parse makes the string
}

// Header returns the part's HTTP headers, keys in canonical form.
func (p *Part) Header() http.Header {
	h := http.Header{}
	eachHeader(p.header, func(k, v []byte) bool {
		h.Add(textproto.CanonicalMIMEHeaderKey(string(k)), string(v))
		return true
	})
	return h
}

// Get returns the value of the part's first HTTP header named key (any
// case), "" if none.
func (p *Part) Get(key string) string {
	v, _ := headerValue(p.header, key)
	return v
}

// eachHeader calls f with the trimmed name and value of each "Name: value"
// line of block until f returns false; lines without a colon or a name are
// skipped.
func eachHeader(block []byte, f func(k, v []byte) bool) {
	for len(block) > 0 {
		var line []byte
		line, block = cutLine(block)
		if k, v, ok := bytes.Cut(line, []byte(":")); ok {
			if k = bytes.TrimSpace(k); len(k) > 0 && !f(k, bytes.TrimSpace(v)) {
				return
			}
		}
	}
}

// headerValue finds the first header of block named key, in any case.
func headerValue(block []byte, key string) (value string, ok bool) {
	eachHeader(block, func(k, v []byte) bool {
		if ok = strings.EqualFold(string(k), key); ok {
			value = string(v)
		}
		return !ok
	})
	return value, ok
}

// maxParts bounds the parts read from one reply: a transaction has at most
// 100 operations, so far more than that is garbage, not a reply.
const maxParts = 1000

// replyPartSize is about what one operation adds to a committed reply: its
// delimiter, MIME headers, status line and the service's headers, a
// Location and DataServiceId with the entity's URL and an ETag among them
// (about 450 bytes for keys of ordinary length).
const replyPartSize = 512

// ReplyHint is the size to read a reply of ops operations into when it
// comes without a Content-Length: a longer one grows the buffer.
func ReplyHint(ops int) int { return 256 + ops*replyPartSize }

// Parse reads a transaction reply: contentType is the response's
// Content-Type header (it may be empty) and body the whole response body.
// It returns the operation responses in the order of the reply. A reply
// that cannot be read gives an error matching ErrMalformed; Parse never
// panics, whatever the input.
//
// Tolerated: CRLF or bare LF line ends; a boundary missing from the header
// (it is then taken from the body's first delimiter line); whitespace after
// a delimiter; a missing closing delimiter (Cosmos DB); text before the
// status line of a part (Azurite writes the changeset boundary there when it
// rejects an over-limit changeset); a batch-level response that is a single
// application/http part instead of a changeset.
func Parse(contentType string, body []byte) ([]Part, error) {
	boundary := boundaryOf(contentType)
	if boundary == "" {
		boundary = boundaryInBody(body)
	}
	if boundary == "" {
		return nil, fmt.Errorf("%w: no multipart boundary in the Content-Type header or the body", ErrMalformed)
	}
	outer := splitParts(body, boundary)
	if len(outer) == 0 {
		return nil, fmt.Errorf("%w: no part delimited by %q", ErrMalformed, boundary)
	}
	var out []Part
	for _, raw := range outer {
		hdr, content := splitMIME(raw)
		ct, _ := headerValue(hdr, "Content-Type")
		if inner := boundaryOf(ct); inner != "" || isMultipart(ct) {
			if inner == "" {
				inner = boundaryInBody(content)
			}
			if inner == "" {
				return nil, fmt.Errorf("%w: changeset without boundary", ErrMalformed)
			}
			raws := splitParts(content, inner)
			out = slices.Grow(out, min(len(raws), maxParts+1))
			for _, rawInner := range raws {
				p, err := parsePart(rawInner)
				if err != nil {
					return nil, err
				}
				out = append(out, p)
				if len(out) > maxParts {
					return nil, fmt.Errorf("%w: more than %d parts", ErrMalformed, maxParts)
				}
			}
			continue
		}
		p, err := parsePart(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no operation responses", ErrMalformed)
	}
	shareETags(out)
	return out, nil
}

// shareETags makes every part's ETag from one string: a reply has one per
// operation, which each result keeps, and one allocation for them all
// instead of one each was a tenth of a transaction's allocations.
func shareETags(parts []Part) {
	n := 0
	for i := range parts {
		n += len(parts[i].etag)
	}
	if n == 0 {
		return
	}
	b := make([]byte, 0, n)
	for i := range parts {
		b = append(b, parts[i].etag...)
	}
	all := string(b)
	for i := range parts {
		l := len(parts[i].etag)
		parts[i].ETag, all = all[:l], all[l:]
		parts[i].etag = nil
	}
}

func isMultipart(ct string) bool {
	return strings.HasPrefix(strings.ToLower(strings.TrimSpace(ct)), "multipart/")
}

// boundaryOf returns the boundary parameter of a multipart Content-Type.
func boundaryOf(ct string) string {
	if !isMultipart(ct) {
		return ""
	}
	_, params, err := mime.ParseMediaType(ct)
	if err == nil && params["boundary"] != "" {
		return params["boundary"]
	}
	// Lenient fallback for values mime rejects.
	i := strings.Index(asciiLower(ct), "boundary=")
	if i < 0 {
		return ""
	}
	b := ct[i+len("boundary="):]
	if j := strings.IndexAny(b, "; \t"); j >= 0 {
		b = b[:j]
	}
	return strings.Trim(b, `"`)
}

// asciiLower lowers ASCII letters only, so that indexes into the result
// are indexes into s (strings.ToLower changes the length of invalid UTF-8).
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// boundaryInBody takes the boundary from the first line that starts with
// "--", skipping blank lines before it.
func boundaryInBody(body []byte) string {
	for len(body) > 0 {
		line, rest := cutLine(body)
		body = rest
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			continue
		}
		if !bytes.HasPrefix(t, []byte("--")) || len(t) <= 2 {
			return ""
		}
		return string(bytes.TrimSuffix(t[2:], []byte("--")))
	}
	return ""
}

// cutLine splits off the first line, without its CRLF or LF.
func cutLine(b []byte) (line, rest []byte) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, nil
	}
	line, rest = b[:i], b[i+1:]
	if n := len(line); n > 0 && line[n-1] == '\r' {
		line = line[:n-1]
	}
	return line, rest
}

// splitParts returns the content of each part between delimiter lines
// "--boundary" (the closing one is "--boundary--"). The line break before
// a delimiter belongs to the delimiter. Text before the first delimiter is a
// preamble and ignored; a missing closing delimiter ends the last part at
// the end of the body.
func splitParts(body []byte, boundary string) [][]byte {
	delim := []byte("--" + boundary)
	var parts [][]byte
	start := -1 // start of the current part's content, -1 before the first delimiter
	pos := 0
	for pos <= len(body) {
		i := indexDelimiter(body, delim, pos)
		if i < 0 {
			break
		}
		// The delimiter line: delim, optional "--", optional whitespace, EOL.
		after := i + len(delim)
		closing := bytes.HasPrefix(body[after:], []byte("--"))
		if closing {
			after += 2
		}
		for after < len(body) && (body[after] == ' ' || body[after] == '\t') {
			after++
		}
		end := after // end of the delimiter line, past its line break
		switch {
		case end == len(body):
		case body[end] == '\n':
			end++
		case body[end] == '\r' && end+1 < len(body) && body[end+1] == '\n':
			end += 2
		case body[end] == '\r' && end+1 == len(body):
			end++
		default:
			// "--boundaryX...": not a delimiter, keep looking.
			pos = i + 1
			continue
		}
		if start >= 0 {
			parts = append(parts, trimLineBreak(body[start:i]))
			if len(parts) > maxParts {
				return parts
			}
		}
		if closing {
			return parts
		}
		start, pos = end, end
	}
	if start >= 0 && start < len(body) {
		if rest := trimLineBreak(body[start:]); len(bytes.TrimSpace(rest)) > 0 {
			parts = append(parts, rest)
		}
	}
	return parts
}

// indexDelimiter finds delim at the start of a line, at or after from.
//
// It searches for the delimiter from its first '_' on (the service's and
// Azurite's boundaries are batchresponse_<id> and changesetresponse_<id>),
// then checks the bytes before: bytes.Index restarts its search at every
// byte that matches the first one of what it looks for, and a reply's
// header lines are full of '-' but have no '_'.
func indexDelimiter(body, delim []byte, from int) int {
	k := max(bytes.IndexByte(delim, '_'), 0)
	for from+k <= len(body) {
		j := bytes.Index(body[from+k:], delim[k:])
		if j < 0 {
			return -1
		}
		i := from + j // where delim would start
		if bytes.Equal(body[i:i+k], delim[:k]) && (i == 0 || body[i-1] == '\n') {
			return i
		}
		from = i + 1
	}
	return -1
}

// trimLineBreak removes the CRLF or LF that precedes a delimiter.
func trimLineBreak(b []byte) []byte {
	if n := len(b); n > 0 && b[n-1] == '\n' {
		b = b[:n-1]
		if n := len(b); n > 0 && b[n-1] == '\r' {
			b = b[:n-1]
		}
	}
	return b
}

// splitMIME splits a part into its MIME header lines and its content. A
// part that starts with an HTTP status line has no MIME headers.
func splitMIME(raw []byte) (header, content []byte) {
	rest := raw
	for len(rest) > 0 {
		line, next := cutLine(rest)
		if len(bytes.TrimSpace(line)) == 0 {
			return raw[:len(raw)-len(rest)], next
		}
		if bytes.HasPrefix(line, []byte("HTTP/")) {
			return raw[:len(raw)-len(rest)], rest
		}
		rest = next
	}
	return raw, nil
}

// parsePart reads one operation response: MIME headers, then an HTTP
// response (status line, headers, blank line, body).
func parsePart(raw []byte) (Part, error) {
	mh, content := splitMIME(raw)
	// Skip anything before the status line (Azurite's stray boundary).
	for len(content) > 0 && !bytes.HasPrefix(content, []byte("HTTP/")) {
		_, content = cutLine(content)
	}
	if len(content) == 0 {
		return Part{}, fmt.Errorf("%w: a part has no HTTP status line", ErrMalformed)
	}
	line, rest := cutLine(content)
	p, err := parseStatusLine(line)
	if err != nil {
		return Part{}, err
	}
	// The headers a reply is read for are picked up in the one pass that
	// finds the end of the header block, the first of each name as Get
	// finds it: three more passes were most of a reply's parsing.
	var length, etag, id firstHeader
	start := rest
	for len(rest) > 0 {
		hl, next := cutLine(rest)
		if len(bytes.TrimSpace(hl)) == 0 {
			p.header, rest = start[:len(start)-len(rest)], next
			break
		}
		if k, v, ok := bytes.Cut(hl, []byte(":")); ok {
			k, v = bytes.TrimSpace(k), bytes.TrimSpace(v)
			length.match(k, v, "Content-Length")
			etag.match(k, v, "ETag")
			id.match(k, v, "Content-Id")
		}
		rest = next
	}
	if len(rest) == 0 && p.header == nil {
		p.header = start
	}
	if length.found {
		if cl, err := strconv.Atoi(string(length.value)); err == nil && cl >= 0 && cl < len(rest) {
			rest = rest[:cl]
		}
	}
	p.Body = rest
	p.etag = etag.value
	if p.ContentID = string(id.value); p.ContentID == "" {
		p.ContentID, _ = headerValue(mh, "Content-Id")
	}
	return p, nil
}

// firstHeader is the first header of a name in a block: its value, and
// whether there was one.
type firstHeader struct {
	value []byte
	found bool
}

// match takes v when k is name (in any case) and no header of that name
// came before.
func (h *firstHeader) match(k, v []byte, name string) {
	if !h.found && len(k) == len(name) && strings.EqualFold(string(k), name) {
		h.value, h.found = v, true
	}
}

// parseStatusLine reads "HTTP/1.1 409 Conflict".
func parseStatusLine(line []byte) (Part, error) {
	_, status, ok := bytes.Cut(line, []byte(" "))
	status = bytes.TrimSpace(status)
	if !ok || len(status) < 3 {
		return Part{}, fmt.Errorf("%w: bad status line %q", ErrMalformed, clip(string(line)))
	}
	code := 0
	for _, c := range status[:3] {
		if c < '0' || c > '9' {
			code = -1
			break
		}
		code = code*10 + int(c-'0')
	}
	if code < 100 || (len(status) > 3 && status[3] != ' ') {
		return Part{}, fmt.Errorf("%w: bad status line %q", ErrMalformed, clip(string(line)))
	}
	return Part{StatusCode: code, Status: statusText(status)}, nil
}

// statusText is status as a string, without an allocation for the lines
// every successful operation answers with.
func statusText(status []byte) string {
	for _, s := range [...]string{"204 No Content", "201 Created", "200 OK"} {
		if string(status) == s {
			return s
		}
	}
	return string(status)
}

func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// SplitIndex splits the service's "<index>:<message>" form: the service
// (and Azurite) prefix the message of a failed operation with its 0-based
// position in the transaction. ok is false when msg has no such prefix.
func SplitIndex(msg string) (index int, rest string, ok bool) {
	i := strings.IndexByte(msg, ':')
	if i <= 0 || i > 3 {
		return 0, msg, false
	}
	n, err := strconv.Atoi(msg[:i])
	if err != nil || n < 0 || msg[0] == '+' {
		return 0, msg, false
	}
	return n, msg[i+1:], true
}
