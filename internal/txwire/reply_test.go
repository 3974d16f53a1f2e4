package txwire

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/tablekit/tablekit/internal/wire"
)

// Replies captured from Azurite 3.37.0.
const (
	azuriteOKType = "multipart/mixed; boundary=batchresponse_2acf218a-3a60-49f1-6350-e8de73ec6b4b"
	azuriteOK     = "--batchresponse_2acf218a-3a60-49f1-6350-e8de73ec6b4b\r\nContent-Type: multipart/mixed; boundary=changesetresponse_3e811e35-3270-4135-5007-0c036713472b\r\n\r\n--changesetresponse_3e811e35-3270-4135-5007-0c036713472b\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nHTTP/1.1 204 No Content\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-cache\r\nDataServiceVersion: 3.0;\r\nLocation: http://127.0.0.1:43187/devstoreaccount1/exp1508(PartitionKey='p',RowKey='a')\r\nDataServiceId: http://127.0.0.1:43187/devstoreaccount1/exp1508(PartitionKey='p',RowKey='a')\r\nETag: W/\"datetime'2026-11-21T23%3A33%3A07.0396728Z'\"\r\n\r\n\r\n--changesetresponse_3e811e35-3270-4135-5007-0c036713472b\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nHTTP/1.1 204 No Content\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-cache\r\nDataServiceVersion: 3.0;\r\nETag: W/\"datetime'2026-11-21T23%3A33%3A07.0396748Z'\"\r\n\r\n\r\n--changesetresponse_3e811e35-3270-4135-5007-0c036713472b\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nHTTP/1.1 204 No Content\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-cache\r\nDataServiceVersion: 1.0;\r\n\r\n\r\n--changesetresponse_3e811e35-3270-4135-5007-0c036713472b--\r\n--batchresponse_2acf218a-3a60-49f1-6350-e8de73ec6b4b--\r\n"

	azuriteConflictType = "multipart/mixed; boundary=batchresponse_a70557aa-c151-49f1-7a25-09cb27271a36"
	azuriteConflict     = "--batchresponse_a70557aa-c151-49f1-7a25-09cb27271a36\r\nContent-Type: multipart/mixed; boundary=changesetresponse_20700347-1a2c-410d-6d35-7112f1b6f1d9\r\n\r\n--changesetresponse_20700347-1a2c-410d-6d35-7112f1b6f1d9\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nHTTP/1.1 409 Conflict\r\nContent-ID: 2\r\nDataServiceVersion: 3.0;\r\nContent-Type: application/json;odata=minimalmetadata;charset=utf-8\r\n\r\n{\"odata.error\":{\"code\":\"EntityAlreadyExists\",\"message\":{\"lang\":\"en-US\",\"value\":\"1:The specified entity already exists.\\nRequestId:da9441f3-4b42-4101-ae21-b44018312112\\nTime:2026-11-21T23:33:07.083Z\"}}}\r\n--changesetresponse_20700347-1a2c-410d-6d35-7112f1b6f1d9--\r\n--batchresponse_a70557aa-c151-49f1-7a25-09cb27271a36--\r\n"

	// Azurite's answer to a changeset of 101 operations: a stray boundary
	// line before the status line, which net/http cannot read.
	azuriteOverLimitType = "multipart/mixed; boundary=batchresponse_43f37ffa-6381-401e-528d-f9877a83cffb"
	azuriteOverLimit     = "--batchresponse_43f37ffa-6381-401e-528d-f9877a83cffb\r\nContent-Type: multipart/mixed; boundary=changesetresponse_0b0378ef-7dd7-4cb3-7d76-568476eccac2\r\n\r\n--changesetresponse_0b0378ef-7dd7-4cb3-7d76-568476eccac2\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nchangesetresponse_0b0378ef-7dd7-4cb3-7d76-568476eccac2\r\nHTTP/1.1 400 Bad Request\r\nX-Content-Type-Options: nosniff\r\nDataServiceVersion: 3.0;\r\nContent-Type: application/json;odata=minimalmetadata;charset=utf-8\r\n\r\n{\"odata.error\":{\"code\":\"InvalidInput\",\"message\":{\"lang\":\"en-US\",\"value\":\"0:The batch request operation exceeds the maximum 100 changes per change set.\\nRequestId:5f132c81-2fc8-4604-a122-b983bdb80773\\nTime:2026-11-21T23:33:07.1090000Z\"}}}\r\n--changesetresponse_0b0378ef-7dd7-4cb3-7d76-568476eccac2--\r\n--batchresponse_43f37ffa-6381-401e-528d-f9877a83cffb--\r\n"
)

// The service's documented error reply, with a Content-ID in the HTTP
// headers of the part and the index in the message.
const serviceError = `--batchresponse_7ab1c22b-ff0e-4d58-9ab0-2a7ebee22e3a
Content-Type: multipart/mixed; boundary=changesetresponse_5ee87a43-3dde-4e29-8adb-47a12a5a2d8e

--changesetresponse_5ee87a43-3dde-4e29-8adb-47a12a5a2d8e
Content-Type: application/http
Content-Transfer-Encoding: binary

HTTP/1.1 400 Bad Request
Content-ID: 4
X-Content-Type-Options: nosniff
Cache-Control: no-cache
DataServiceVersion: 3.0;
Content-Type: application/json;odata=minimalmetadata;streaming=true;charset=utf-8

{"odata.error":{"code":"InvalidInput","message":{"lang":"en-US","value":"1:One of the request inputs is not valid.\nRequestId:7ab1c22b\nTime:2024-01-01T00:00:00.000Z"}}}
--changesetresponse_5ee87a43-3dde-4e29-8adb-47a12a5a2d8e--
--batchresponse_7ab1c22b-ff0e-4d58-9ab0-2a7ebee22e3a--
`

// A Cosmos DB style reply: no closing delimiters, the failure among 424s.
const cosmosFailure = "--batchresponse_1\r\nContent-Type: multipart/mixed; boundary=changesetresponse_2\r\n\r\n" +
	"--changesetresponse_2\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nHTTP/1.1 424 Failed Dependency\r\n\r\n\r\n" +
	"--changesetresponse_2\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nHTTP/1.1 409 Conflict\r\nContent-Type: application/json\r\n\r\n{\"odata.error\":{\"code\":\"EntityAlreadyExists\",\"message\":{\"value\":\"The specified entity already exists.\"}}}\r\n" +
	"--changesetresponse_2\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nHTTP/1.1 424 Failed Dependency\r\n\r\n"

func TestParse(t *testing.T) {
	type want struct {
		statuses []int
		etag0    string
		code     string // of the first failed part
		msg      string
		cid      string
	}
	tests := []struct {
		name string
		ct   string
		body string
		want want
	}{
		{"azurite ok", azuriteOKType, azuriteOK, want{statuses: []int{204, 204, 204}, etag0: `W/"datetime'2026-11-21T23%3A33%3A07.0396728Z'"`}},
		{"azurite ok LF", azuriteOKType, strings.ReplaceAll(azuriteOK, "\r\n", "\n"), want{statuses: []int{204, 204, 204}, etag0: `W/"datetime'2026-11-21T23%3A33%3A07.0396728Z'"`}},
		{"azurite ok no content type", "", azuriteOK, want{statuses: []int{204, 204, 204}, etag0: `W/"datetime'2026-11-21T23%3A33%3A07.0396728Z'"`}},
		{"azurite ok wrong content type", "application/json", azuriteOK, want{statuses: []int{204, 204, 204}, etag0: `W/"datetime'2026-11-21T23%3A33%3A07.0396728Z'"`}},
		{"azurite conflict", azuriteConflictType, azuriteConflict, want{statuses: []int{409}, code: "EntityAlreadyExists", msg: "1:The specified entity already exists.", cid: "2"}},
		{"azurite over limit", azuriteOverLimitType, azuriteOverLimit, want{statuses: []int{400}, code: "InvalidInput", msg: "0:The batch request operation exceeds the maximum 100 changes per change set."}},
		{"azurite over limit LF", "", strings.ReplaceAll(azuriteOverLimit, "\r\n", "\n"), want{statuses: []int{400}, code: "InvalidInput", msg: "0:The batch request operation exceeds the maximum 100 changes per change set."}},
		{"service error LF", "multipart/mixed; boundary=batchresponse_7ab1c22b-ff0e-4d58-9ab0-2a7ebee22e3a", serviceError, want{statuses: []int{400}, code: "InvalidInput", msg: "1:One of the request inputs is not valid.", cid: "4"}},
		{"service error CRLF quoted boundary", `multipart/mixed; boundary="batchresponse_7ab1c22b-ff0e-4d58-9ab0-2a7ebee22e3a"`, strings.ReplaceAll(serviceError, "\n", "\r\n"), want{statuses: []int{400}, code: "InvalidInput", msg: "1:One of the request inputs is not valid.", cid: "4"}},
		{"cosmos no closing delimiters", "multipart/mixed; boundary=batchresponse_1", cosmosFailure, want{statuses: []int{424, 409, 424}, code: "EntityAlreadyExists", msg: "The specified entity already exists."}},
		{"batch-level part", "multipart/mixed; boundary=b", "--b\r\nContent-Type: application/http\r\n\r\nHTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\n\r\n{\"odata.error\":{\"code\":\"InvalidInput\",\"message\":{\"value\":\"bad batch\"}}}\r\n--b--\r\n", want{statuses: []int{400}, code: "InvalidInput", msg: "bad batch"}},
		// Header names in any case, the first of each name, the body cut at
		// its Content-Length.
		{"header case, first of each, length", "multipart/mixed; boundary=b", "--b\r\nContent-Type: application/http\r\n\r\nHTTP/1.1 409 Conflict\r\ncontent-id: 7\r\nCONTENT-LENGTH: 77\r\netag: a\r\nETag: b\r\nContent-ID: 8\r\n\r\n{\"odata.error\":{\"code\":\"EntityAlreadyExists\",\"message\":{\"value\":\"0:exists\"}}}garbage\r\n--b--\r\n", want{statuses: []int{409}, etag0: "a", code: "EntityAlreadyExists", msg: "0:exists", cid: "7"}},
		{"preamble and padding", "multipart/mixed; boundary=b", "preamble\r\n--b  \r\nContent-Type: multipart/mixed; boundary=c\r\n\r\n--c\t\r\n\r\nHTTP/1.1 201 Created\r\nETag: x\r\n\r\n{}\r\n--c--\r\n--b--", want{statuses: []int{201}, etag0: "x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts, err := Parse(tt.ct, []byte(tt.body))
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			var got []int
			for _, p := range parts {
				got = append(got, p.StatusCode)
			}
			if !equalInts(got, tt.want.statuses) {
				t.Fatalf("statuses = %v, want %v", got, tt.want.statuses)
			}
			if tt.want.etag0 != "" {
				if got := parts[0].ETag; got != tt.want.etag0 {
					t.Errorf("ETag = %q, want %q", got, tt.want.etag0)
				}
				if got := parts[0].Header().Get("ETag"); got != tt.want.etag0 {
					t.Errorf("Header().Get(ETag) = %q, want %q", got, tt.want.etag0)
				}
			}
			if tt.want.code == "" {
				return
			}
			var failed *Part
			for i := range parts {
				if parts[i].StatusCode >= 400 && parts[i].StatusCode != 424 {
					failed = &parts[i]
					break
				}
			}
			code, msg := wire.ErrorBody(failed.Body)
			if got := wire.FirstLine(msg); code != tt.want.code || got != tt.want.msg {
				t.Errorf("error = %q %q, want %q %q", code, got, tt.want.code, tt.want.msg)
			}
			if failed.ContentID != tt.want.cid {
				t.Errorf("ContentID = %q, want %q", failed.ContentID, tt.want.cid)
			}
		})
	}
}

func TestParseMalformed(t *testing.T) {
	for _, body := range []string{
		"",
		"{\"odata.error\":{}}",
		"--b\r\n",
		"--b\r\nContent-Type: application/http\r\n\r\nnot http\r\n--b--",
		"--b\r\nContent-Type: application/http\r\n\r\nHTTP/1.1 abc\r\n--b--",
		"--b\r\nContent-Type: multipart/mixed\r\n\r\n\r\n--b--",
		"--\r\n--\r\n",
	} {
		if _, err := Parse("", []byte(body)); !errors.Is(err, ErrMalformed) {
			t.Errorf("Parse(%q) error = %v, want ErrMalformed", body, err)
		}
	}
}

func TestSplitIndex(t *testing.T) {
	tests := []struct {
		msg  string
		idx  int
		rest string
		ok   bool
	}{
		{"1:The specified entity already exists.", 1, "The specified entity already exists.", true},
		{"99:x", 99, "x", true},
		{"0:", 0, "", true},
		{"The specified entity already exists.", 0, "The specified entity already exists.", false},
		{"Time:12", 0, "Time:12", false},
		{"-1:x", 0, "-1:x", false},
		{"+1:x", 0, "+1:x", false},
		{"1234:x", 0, "1234:x", false},
		{":x", 0, ":x", false},
	}
	for _, tt := range tests {
		idx, rest, ok := SplitIndex(tt.msg)
		if idx != tt.idx || rest != tt.rest || ok != tt.ok {
			t.Errorf("SplitIndex(%q) = %d, %q, %v; want %d, %q, %v", tt.msg, idx, rest, ok, tt.idx, tt.rest, tt.ok)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// FuzzParse: no input makes Parse panic, loop or return parts with
// impossible status codes.
func FuzzParse(f *testing.F) {
	for _, s := range []string{azuriteOK, azuriteConflict, azuriteOverLimit, serviceError, cosmosFailure, "", "--b\n\nHTTP/1.1 200 OK\n\n"} {
		f.Add("", []byte(s))
	}
	f.Add(azuriteOKType, []byte(azuriteOK))
	f.Add("multipart/mixed; boundary=", []byte("--\r\n"))
	f.Fuzz(func(t *testing.T, ct string, body []byte) {
		parts, err := Parse(ct, body)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("error %v does not match ErrMalformed", err)
			}
			return
		}
		if len(parts) == 0 || len(parts) > maxParts+1 {
			t.Fatalf("%d parts without error", len(parts))
		}
		for _, p := range parts {
			if p.StatusCode < 100 || p.StatusCode > 999 {
				t.Fatalf("impossible part %+v", p)
			}
			// The lazy headers say what the map says.
			if got, want := p.ETag, p.Header().Get("ETag"); got != want {
				t.Fatalf("ETag %q, Header() has %q", got, want)
			}
			wire.ErrorBody(p.Body)
		}
	})
}

// TestParseStatusLine: a part's status line gives its code and text, and
// anything but three digits from 100 up, alone or before a space, is
// malformed.
func TestParseStatusLine(t *testing.T) {
	tests := []struct {
		line     string
		code     int
		status   string
		malforms bool
	}{
		{"HTTP/1.1 204 No Content", 204, "204 No Content", false},
		{"HTTP/1.1 201 Created ", 201, "201 Created", false},
		{"HTTP/1.1 200 OK", 200, "200 OK", false},
		{"HTTP/1.1 409 Conflict", 409, "409 Conflict", false},
		{"HTTP/1.1 412", 412, "412", false},
		{"HTTP/1.1 +12 X", 0, "", true},
		{"HTTP/1.1 20x No", 0, "", true},
		{"HTTP/1.1 099 Low", 0, "", true},
		{"HTTP/1.1 2045 Long", 0, "", true},
		{"HTTP/1.1", 0, "", true},
	}
	for _, tt := range tests {
		p, err := parseStatusLine([]byte(tt.line))
		if got := errors.Is(err, ErrMalformed); got != tt.malforms {
			t.Errorf("%q: error %v, want malformed: %v", tt.line, err, tt.malforms)
			continue
		}
		if p.StatusCode != tt.code || p.Status != tt.status {
			t.Errorf("%q: got %d %q, want %d %q", tt.line, p.StatusCode, p.Status, tt.code, tt.status)
		}
	}
}

// TestIndexDelimiter: the search from the delimiter's '_' finds what a
// plain search for the whole delimiter at a line start finds, in bodies
// of the bytes that matter (line breaks, dashes, underscores, the
// boundary's letters), with and without an '_' in the delimiter.
func TestIndexDelimiter(t *testing.T) {
	plain := func(body, delim []byte, from int) int {
		for i := from; i+len(delim) <= len(body); i++ {
			if bytes.Equal(body[i:i+len(delim)], delim) && (i == 0 || body[i-1] == '\n') {
				return i
			}
		}
		return -1
	}
	r := rand.New(rand.NewPCG(1, 2))
	const alphabet = "-_ab\r\n"
	for _, delim := range []string{"--a_b", "--ab", "--_a", "--a_"} {
		for range 20000 {
			body := make([]byte, r.IntN(40))
			for i := range body {
				body[i] = alphabet[r.IntN(len(alphabet))]
			}
			from := r.IntN(len(body) + 1)
			if got, want := indexDelimiter(body, []byte(delim), from), plain(body, []byte(delim), from); got != want {
				t.Fatalf("indexDelimiter(%q, %q, %d) = %d, want %d", body, delim, from, got, want)
			}
		}
	}
}
