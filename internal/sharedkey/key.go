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

// secret holds the key bytes and signers keyed with them: a request's
// signature reuses one rather than building two SHA-256 states and its
// buffers each time.
type secret struct {
	b       []byte
	signers sync.Pool // of *signer
}

// signer is an HMAC keyed with the key and the scratch space of a
// signature. It never leaves the package: what a caller gets is a copy.
type signer struct {
	mac hash.Hash
	buf []byte // the string to sign, then the header
	sum []byte
}

func (k *Key) signer() *signer {
	if s, _ := k.secret.signers.Get().(*signer); s != nil {
		return s
	}
	return &signer{mac: hmac.New(sha256.New, k.secret.b), buf: make([]byte, 0, 256), sum: make([]byte, 0, sha256.Size)}
}

func (k *Key) release(s *signer) {
	s.mac.Reset()
	k.secret.signers.Put(s)
}

// sign sets s.sum to the HMAC-SHA256 of msg.
func (s *signer) sign(msg []byte) {
	s.mac.Write(msg)
	s.sum = s.mac.Sum(s.sum[:0])
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
	s := k.signer()
	defer k.release(s)
	s.buf = append(s.buf[:0], stringToSign...)
	s.sign(s.buf)
	return base64.StdEncoding.EncodeToString(s.sum)
}

// String shows the account with the key redacted.
func (k Key) String() string { return "sharedkey.Key{Account: " + k.account + ", Key: REDACTED}" }

// GoString is String, so %#v does not reveal the key either.
func (k Key) GoString() string { return k.String() }

// Format prints String for every verb.
func (k Key) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(k.String())) }
