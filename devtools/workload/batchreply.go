package workload

import (
	"bytes"
	"net/http"
	"strconv"
)

// batchReply is the service's 202 answer to a committed $batch of n
// operations: one 204 part per operation, each with its ETag.
func batchReply(req *http.Request, h http.Header, body []byte) *http.Response {
	n := bytes.Count(body, []byte("Content-Type: application/http\r\n"))
	var b bytes.Buffer
	b.WriteString("--batchresponse_1\r\nContent-Type: multipart/mixed; boundary=changesetresponse_1\r\n\r\n")
	for i := range n {
		b.WriteString("--changesetresponse_1\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n")
		b.WriteString("HTTP/1.1 204 No Content\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-cache\r\n")
		b.WriteString("Preference-Applied: return-no-content\r\nDataServiceVersion: 3.0;\r\n")
		b.WriteString("Content-ID: " + strconv.Itoa(i+1) + "\r\nETag: " + etag + "\r\n\r\n\r\n")
	}
	b.WriteString("--changesetresponse_1--\r\n--batchresponse_1--\r\n")
	h.Set("Content-Type", "multipart/mixed; boundary=batchresponse_1")
	return respond(req, http.StatusAccepted, h, b.Bytes())
}
