package sas

import (
	"errors"
	"net/http"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
)

// ErrInvalid reports signature values, a stored access policy or a token
// that the service would reject. It is returned before anything is signed or
// sent; the detail is a *FieldError.
var ErrInvalid = errors.New("sas: invalid")

// ErrPolicyNotFound reports a stored access policy identifier that the table
// does not have, e.g. from RevokePolicy: revoking a mistyped identifier must
// not look like success.
var ErrPolicyNotFound = errors.New("sas: stored access policy not found")

// FieldError names the field and the service rule that a value breaks.
// Values themselves are never included: keys and identifiers may be
// sensitive, and a message must never carry a key or a signature.
type FieldError struct {
	Field string // the Go field or query parameter, e.g. "Expiry" or "se"
	Rule  string // the rule broken, e.g. "must be after Start"
	Err   error  // an underlying error (time or number parsing), if any
}

func (e *FieldError) Error() string {
	s := "sas: invalid " + e.Field + ": " + e.Rule
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Is makes errors.Is(err, ErrInvalid) true.
func (e *FieldError) Is(target error) bool { return target == ErrInvalid }

// Unwrap returns the underlying error, if any.
func (e *FieldError) Unwrap() error { return e.Err }

func invalid(field, rule string) error { return &FieldError{Field: field, Rule: rule} }

// IsAuthorizationError reports whether err is the service refusing a request
// because of its SAS or key: HTTP 403 with an error code such as
// AuthorizationPermissionMismatch (the token lacks the permission),
// AuthorizationFailure (expired, not yet valid, unknown or revoked policy),
// AuthorizationProtocolMismatch (https-only token over http),
// AuthorizationSourceIPMismatch, AuthorizationResourceTypeMismatch,
// AuthorizationServiceMismatch or AuthenticationFailed (wrong signature).
//
// Retrying such a request never helps; issuing a new token may. The
// *azcore.ResponseError stays reachable with errors.As for the exact
// ErrorCode.
func IsAuthorizationError(err error) bool {
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != http.StatusForbidden {
		return false
	}
	return re.ErrorCode == "" ||
		strings.HasPrefix(re.ErrorCode, "Authorization") ||
		re.ErrorCode == "AuthenticationFailed"
}
