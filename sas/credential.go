package sas

import (
	"fmt"
	"net/url"

	"github.com/tablekit/tablekit/internal/core"
	"github.com/tablekit/tablekit/internal/sharedkey"
	"github.com/tablekit/tablekit/table"
)

// Credential is a storage account name and its shared key, the secret that
// signs every SAS: keep it on the server that issues tokens. It never shows
// its key ("REDACTED" under every fmt verb); the zero value cannot sign.
type Credential struct {
	account string
	// The key sits behind a pointer: even when fmt prints a Credential by
	// reflection (as an unexported field of a caller's struct, where
	// Format cannot be called), it shows only an address. It is the key
	// type table's Shared Key signing uses too.
	key *sharedkey.Key
}

// NewCredential decodes the base64 account key (as shown in the portal or a
// connection string). The error names what is wrong without quoting the key.
func NewCredential(account, key string) (*Credential, error) {
	if account == "" {
		return nil, invalid("account", "must not be empty")
	}
	if key == "" {
		return nil, invalid("key", "must not be empty")
	}
	k, err := sharedkey.New(account, key)
	if err != nil {
		// The error carries only an offset, never the input.
		return nil, invalidErr("key", "must be base64", err)
	}
	return &Credential{account: account, key: k}, nil
}

// ServiceCredential returns the credential of the account svc connects to,
// from the key it already holds: no second parse of the connection string.
// A service made from a SAS or a token has no key: ErrInvalid.
func ServiceCredential(svc *table.Service) (*Credential, error) {
	if svc == nil {
		return nil, invalid("service", "is nil")
	}
	account, key, ok := (*core.Service)(svc).SharedKey()
	if !ok {
		return nil, invalid("service", "has no shared key (made from a SAS or a token credential)")
	}
	return NewCredential(account, key)
}

// AccountName returns the storage account name, which is part of what is
// signed.
func (c *Credential) AccountName() string { return c.account }

// String returns the account name with the key redacted.
func (c Credential) String() string {
	return "sas.Credential{Account: " + c.account + ", Key: REDACTED}"
}

// GoString is like String, so %#v does not reveal the key either.
func (c Credential) GoString() string { return c.String() }

// Format prints the redacted form for every verb (%v, %+v, %#v, %s, %x, ...),
// so that no formatting path reaches the key bytes.
func (c Credential) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(c.String())) }

// sign returns the base64 HMAC-SHA256 of stringToSign under the key.
func (c *Credential) sign(stringToSign string) (string, error) {
	if c == nil || c.key.Empty() {
		return "", invalid("credential", "has no key (use NewCredential)")
	}
	return c.key.Sign(stringToSign), nil
}

// signable is a resolved, validated set of SAS fields: what is signed and
// what is sent.
type signable interface {
	stringToSign(account string) string
	values() url.Values
}

// signFields signs f with cred and returns its query parameters with sig.
func signFields(cred *Credential, f signable) (url.Values, error) {
	if cred == nil {
		return nil, invalid("credential", "is nil")
	}
	sig, err := cred.sign(f.stringToSign(cred.AccountName()))
	if err != nil {
		return nil, err
	}
	v := f.values()
	v.Set("sig", sig)
	return v, nil
}
