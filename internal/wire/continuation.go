package wire

import (
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A continuation of Table Storage (x-ms-continuation-NextPartitionKey and
// NextRowKey) names the next key to read. The service writes it as "1!",
// the length of the base64 text, "!", then the base64 (standard alphabet)
// of the key's UTF-8 with each '=' written '-': "1!8!U21pdGg-" is "Smith"
// (the Query Timeout and Pagination page of the REST reference). Azurite
// writes the plain base64, "U21pdGg=", and reads it as Node.js does, its
// padding optional. Cosmos DB for Table sends values of its own that name
// no key: never parse those.

// errContinuation is the cause of every continuation that names no key.
var errContinuation = errors.New("not a continuation that names a key")

// ErrContinuationVersion is the error of a continuation in the service's
// versioned form ("N!...") with a version other than 1: a form this package
// does not know, not a garbled one, so callers follow it unchecked.
var ErrContinuationVersion = errors.New("a continuation of a version this package does not know")

// ParseContinuation returns the key a Table Storage (or Azurite)
// continuation names, or an error when v is neither form: cut short,
// garbled, or of a version this package does not know.
func ParseContinuation(v string) (string, error) {
	var key []byte
	var err error
	if rest, ok := strings.CutPrefix(v, "1!"); ok {
		n, text, ok := strings.Cut(rest, "!")
		length, aerr := strconv.Atoi(n)
		if !ok || aerr != nil || length != len(text) {
			return "", errContinuation
		}
		key, err = base64.StdEncoding.Strict().DecodeString(strings.ReplaceAll(text, "-", "="))
	} else if version(v) {
		return "", ErrContinuationVersion
	} else {
		key, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(v, "="))
	}
	if err != nil || !utf8.Valid(key) {
		return "", errContinuation
	}
	return string(key), nil
}

// version reports v in the versioned form "N!...", N digits other than 1
// (a base64 text never holds '!').
func version(v string) bool {
	n, _, ok := strings.Cut(v, "!")
	if !ok || n == "" || n == "1" {
		return false
	}
	for _, r := range n {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
