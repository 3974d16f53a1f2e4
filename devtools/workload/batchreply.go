package workload

import (
	"bytes"
	"net/http"
	"strconv"
)

// batchReply is the service's 202 answer to a committed $batch of n
// operations: one 204 part per operation, each with its ETag.
func batchReply(req *http.Request, body []byte) *http.Response {
	n := bytes.Count(body, []byte("Content-Type: application/http\r\n"))
	const (
		head = "--batchresponse_1\r\nContent-Type: multipart/mixed; boundary=changesetresponse_1\r\n\r\n"
		part = "--changesetresponse_1\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n" +
			"HTTP/1.1 204 No Content\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-cache\r\n" +
			"Preference-Applied: return-no-content\r\nDataServiceVersion: 3.0;\r\nContent-ID: "
		tail = "--changesetresponse_1--\r\n--batchresponse_1--\r\n"
	)
	// One buffer of the reply's size, each part appended: the service's
	// own work is counted with the client's.
	b := make([]byte, 0, len(head)+n*(len(part)+len("\r\nETag: \r\n\r\n\r\n")+len(etag)+3)+len(tail))
	b = append(b, head...)
	for i := range n {
		b = append(b, part...)
		b = strconv.AppendInt(b, int64(i+1), 10)
		b = append(b, "\r\nETag: "...)
		b = append(b, etag...)
		b = append(b, "\r\n\r\n\r\n"...)
	}
	b = append(b, tail...)
	return respond(req, http.StatusAccepted, b, "Content-Type", "multipart/mixed; boundary=batchresponse_1")
}
