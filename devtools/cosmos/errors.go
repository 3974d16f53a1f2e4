package cosmos

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strconv"
)

// The error answers of the stand-in's own rules. The JSON wrapper, lang
// "en-us" and the ActivityId/RequestID lines follow a Cosmos DB Table API
// error quoted in azure-sdk-for-net #47191; the "Message: {"Errors":[...]}"
// texts are Cosmos DB's for 429 and 413 as its SQL API writes them
// (Azure-Samples/azure-cosmos-db-table-dotnet-getting-started #1 shows the
// 429 one from a Table API account). The codes marked guess are not
// documented for the Table API.
const (
	// codeThrottled is a guess: the status's name, as Cosmos DB's SDKs call it.
	codeThrottled = "TooManyRequests"
	msgThrottled  = `Message: {"Errors":["Request rate is large. More Request Units may be needed, so no changes were made. Please retry this request later. Learn more: http://aka.ms/cosmosdb-error-429"]}`
	// codeTooLarge is a guess (Cosmos DB's SDKs name the 413 so).
	codeTooLarge = "RequestEntityTooLarge"
	msgTooLarge  = `Message: {"Errors":["Request size is too large"]}`
	// codeBadRequest is a guess for the key-length and reserved-name rules.
	codeBadRequest = "BadRequest"
	// codeNotImplemented is a guess: Table Storage's code for an operation
	// a resource does not implement.
	codeNotImplemented = "NotImplemented"
)

// cosmosError renders an error body as the Table API writes it.
func cosmosError(code, message string) []byte {
	id := activityID()
	type msg struct {
		Lang  string `json:"lang"`
		Value string `json:"value"`
	}
	type odataError struct {
		Code    string `json:"code"`
		Message msg    `json:"message"`
	}
	value := message + "\r\nActivityId: " + id + ", documentdb-dotnet-sdk/2.14.0 Host/64-bit MicrosoftWindowsNT/10.0.20348.0\nRequestID:" + id + "\n"
	b, _ := json.Marshal(map[string]odataError{"odata.error": {Code: code, Message: msg{Lang: "en-us", Value: value}}})
	return b
}

// writeError answers status with a Cosmos DB style error body.
func writeError(w http.ResponseWriter, status int, code, message string) {
	body := cosmosError(code, message)
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body)
}

// activityID is a random version 4 UUID, as Cosmos DB's activity ids are.
func activityID() string {
	var u [16]byte
	_, _ = rand.Read(u[:])
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	h := hex.EncodeToString(u[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}
