package sharedkey

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"hash"
	"sync"
)

// Key is an account name and its decoded shared key. It is immutable and
// safe for concurrent use.
type Key struct {
	account string
	secret  *secret
}

// secret holds the key bytes and HMACs keyed with them: a request's
// signature reuses one rather than building two SHA-256 states each time.
type secret struct {
	b    []byte
	macs sync.Pool // of hash.Hash, keyed with b
}

// New decodes key, the account key in standard base64 as the portal and
// connection strings show it. Its error is base64's, which carries an
// offset only, never the key.
func New(account, key string) (*Key, error) {
	b, err := base64.StdEncoding.DecodeString(key)
	if err != nil {
		return nil, err
	}
	return &Key{account: account, secret: &secret{b: b}}, nil
}

// Account is the storage account's name.
func (k *Key) Account() string { return k.account }

// Empty reports a Key without key bytes (nil, zero, or an empty key), which
// cannot sign.
func (k *Key) Empty() bool { return k == nil || k.secret == nil || len(k.secret.b) == 0 }

// Sign returns the base64 HMAC-SHA256 of stringToSign under the key, the
// signature of both Shared Key Lite and SAS. k must not be Empty.
func (k *Key) Sign(stringToSign string) string {
	var sum [sha256.Size]byte
	return base64.StdEncoding.EncodeToString(k.mac(sum[:0], []byte(stringToSign)))
}

// mac appends the HMAC-SHA256 of msg under the key to dst. The HMAC comes
// from the key's pool and goes back to it reset; it never leaves here.
func (k *Key) mac(dst, msg []byte) []byte {
	h, _ := k.secret.macs.Get().(hash.Hash)
	if h == nil {
		h = hmac.New(sha256.New, k.secret.b)
	}
	h.Write(msg)
	dst = h.Sum(dst)
	h.Reset()
	k.secret.macs.Put(h)
	return dst
}

// String shows the account with the key redacted.
func (k Key) String() string { return "sharedkey.Key{Account: " + k.account + ", Key: REDACTED}" }

// GoString is String, so %#v does not reveal the key either.
func (k Key) GoString() string { return k.String() }

// Format prints String for every verb.
func (k Key) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(k.String())) }
