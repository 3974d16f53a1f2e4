package txwire

import (
	"bytes"
	"encoding/json"
	"net/url"
	"strings"
)

// requestLineEnd ends the request line of every operation of a $batch body
// ("METHOD URL HTTP/1.1" CRLF). An entity's JSON cannot hold it (JSON
// escapes CR and LF inside strings) and a header line never ends so.
var requestLineEnd = []byte(" HTTP/1.1\r\n")

// CountOps is the number of operations in a $batch request body, counted by
// their request lines without parsing the multipart structure: cheap
// enough for every attempt of a request, and right for any client's body.
func CountOps(body []byte) int { return bytes.Count(body, requestLineEnd) }

// PartitionOf is the PartitionKey of a write's request: the first
// "PartitionKey" member of its JSON (an insert's, a transaction's first
// entity) or else the PartitionKey='...' of its path (an update, a
// delete): decoded from a path (which doubles single quotes), from the
// percent-encoding of a $batch body's request line. ok is false when
// neither is there.
func PartitionOf(path string, body []byte) (pk string, ok bool) {
	if i := bytes.Index(body, []byte(`"PartitionKey":`)); i >= 0 {
		v := bytes.TrimLeft(body[i+len(`"PartitionKey":`):], " ")
		if end := stringEnd(v); end > 0 && json.Unmarshal(v[:end], &pk) == nil {
			return pk, true
		}
	}
	if pk, ok := keyIn(path); ok {
		return strings.ReplaceAll(pk, "''", "'"), true
	}
	pk, ok = keyIn(string(body))
	if !ok {
		return "", false
	}
	u, err := url.PathUnescape(pk)
	return u, err == nil
}

// keyIn is what stands between PartitionKey=' and ',RowKey=' in s.
func keyIn(s string) (string, bool) {
	_, rest, found := strings.Cut(s, "PartitionKey='")
	if !found {
		return "", false
	}
	pk, _, found := strings.Cut(rest, "',RowKey='")
	return pk, found
}

// stringEnd is the length of the JSON string literal at the start of v, or
// 0 when v does not start with a whole one.
func stringEnd(v []byte) int {
	if len(v) == 0 || v[0] != '"' {
		return 0
	}
	for i := 1; i < len(v); i++ {
		switch v[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return 0
}
