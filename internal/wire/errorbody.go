package wire

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// MaxMessage is where FirstLine cuts a service message, so that an error
// string stays one readable line whatever the service sent.
const MaxMessage = 300

// ErrorBody reads an OData error body and returns its code and message.
// The service and Azurite write {"odata.error":{"code":..,"message":{"lang":
// ..,"value":..}}}; Cosmos DB and newer versions may write {"error":{"code":
// ..,"message":..}} with a plain string message. Both are empty when body is
// neither.
func ErrorBody(body []byte) (code, message string) {
	var v struct {
		OData *odataError `json:"odata.error"`
		Error *odataError `json:"error"`
	}
	if json.Unmarshal(bytes.TrimSpace(body), &v) != nil {
		return "", ""
	}
	e := v.OData
	if e == nil {
		e = v.Error
	}
	if e == nil {
		return "", ""
	}
	return e.Code, string(e.Message)
}

type odataError struct {
	Code    string       `json:"code"`
	Message odataMessage `json:"message"`
}

// odataMessage is {"lang":..,"value":..} or a plain string.
type odataMessage string

// UnmarshalJSON accepts both forms of the message.
func (m *odataMessage) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*m = odataMessage(s)
		return nil
	}
	var v struct {
		Value string `json:"value"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*m = odataMessage(v.Value)
	return nil
}

// FirstLine returns the first line of a service message (the service puts
// the request id and time on the next lines), trimmed and cut to MaxMessage
// bytes at a character boundary, with "..." when cut.
func FirstLine(msg string) string {
	msg, _, _ = strings.Cut(msg, "\n")
	msg = strings.TrimSpace(msg)
	if len(msg) <= MaxMessage {
		return msg
	}
	cut := MaxMessage
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + "..."
}
