package faults

import "encoding/json"

// errorBody renders the JSON error body of the Table service:
// {"odata.error":{"code":"...","message":{"lang":"en-US","value":"..."}}}.
func errorBody(code, message string) []byte {
	type msg struct {
		Lang  string `json:"lang"`
		Value string `json:"value"`
	}
	type odataError struct {
		Code    string `json:"code"`
		Message msg    `json:"message"`
	}
	b, _ := json.Marshal(map[string]odataError{"odata.error": {Code: code, Message: msg{Lang: "en-US", Value: message}}})
	return b
}
