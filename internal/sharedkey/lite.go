package sharedkey

import (
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
)

// Policy returns the pipeline policy that signs every request with Shared
// Key Lite for the Table service: x-ms-date (set to now unless the request
// has one) and the canonicalized resource, HMAC-SHA256 under the key, in
// "Authorization: SharedKeyLite <account>:<signature>". It signs what
// aztables' SharedKeyCredential signs, byte for byte. Install it as a
// per-retry policy, so that every attempt is signed again.
func (k *Key) Policy() policy.Policy { return litePolicy{k} }

type litePolicy struct{ key *Key }

func (p litePolicy) Do(req *policy.Request) (*http.Response, error) {
	if err := p.key.SignLite(req.Raw()); err != nil {
		return nil, err
	}
	return req.Next()
}

// SignLite sets the x-ms-date (unless r has one) and Authorization headers
// of r for Shared Key Lite. It fails only on a query string that does not
// parse. The string to sign and the header are built in one buffer: a
// request is signed on every attempt, and the strings were most of its
// allocations.
func (k *Key) SignLite(r *http.Request) error {
	s := k.signer()
	defer k.release(s)
	b := s.buf[:0]
	defer func() { s.buf = b[:0] }()
	date := r.Header.Get(hdrDate)
	// The values of both headers in one slice: one allocation, not two.
	var vals []string
	if date == "" {
		date = now()
		vals = make([]string, 2)
		vals[0] = date
		r.Header[hdrDate] = vals[0:1:1]
		vals = vals[1:]
	} else {
		vals = make([]string, 1)
	}
	b = append(b, date...)
	b = append(b, '\n')
	b, err := appendResource(b, k.account, r.URL)
	if err != nil {
		return err
	}
	s.sign(b)
	b = append(b[:0], "SharedKeyLite "...)
	b = append(b, k.account...)
	b = append(b, ':')
	b = base64.StdEncoding.AppendEncode(b, s.sum)
	vals[0] = string(b)
	r.Header[hdrAuthorization] = vals[0:1:1]
	return nil
}

// now is the current time as x-ms-date, made once a second: its layout
// (http.TimeFormat) counts whole seconds, and formatting it for every
// attempt was a quarter of a signature's allocations.
func now() string {
	t := time.Now()
	if d := lastDate.Load(); d != nil && d.unix == t.Unix() {
		return d.text
	}
	d := &date{unix: t.Unix(), text: t.UTC().Format(http.TimeFormat)}
	lastDate.Store(d)
	return d.text
}

// date is an x-ms-date value and the Unix second it names.
type date struct {
	unix int64
	text string
}

var lastDate atomic.Pointer[date]

// The headers SignLite sets, in net/http's canonical form (what Header.Set
// would make of them).
const (
	hdrDate          = "X-Ms-Date"
	hdrAuthorization = "Authorization"
)

// CanonicalizedResource is the resource a Shared Key Lite signature of the
// Table service covers: "/" + account + the URL's escaped path ("/" when
// empty), and "?comp=" + the comp parameter when the query has one. It
// always names the account the key belongs to: a request to the secondary
// (<account>-secondary) is signed as the primary's, as the service documents
// for Shared Key, so table's location policy redirects a read after it was
// signed.
func CanonicalizedResource(account string, u *url.URL) (string, error) {
	b, err := appendResource(nil, account, u)
	return string(b), err
}

// appendResource appends CanonicalizedResource's resource to b.
func appendResource(b []byte, account string, u *url.URL) ([]byte, error) {
	b = append(b, '/')
	b = append(b, account...)
	if u.RawPath == "" && u.Path != "" && !needsEscape(u.Path) {
		b = append(b, u.Path...) // what EscapedPath returns, without building it
	} else if p := u.EscapedPath(); p != "" {
		b = append(b, p...)
	} else {
		b = append(b, '/')
	}
	if u.RawQuery != "" {
		q, err := url.ParseQuery(u.RawQuery)
		if err != nil {
			return nil, errQuery
		}
		if comp, ok := q["comp"]; ok {
			b = append(b, "?comp="...)
			b = append(b, comp[0]...)
		}
	}
	return b, nil
}

// needsEscape reports a path with a byte that url.URL.EscapedPath would
// escape when the URL has no RawPath: anything but letters, digits and
// "-_.~$&+,/:;=@" (net/url's shouldEscape for a path).
func needsEscape(p string) bool {
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("-_.~$&+,/:;=@", c) >= 0:
		default:
			return true
		}
	}
	return false
}

// errQuery is a request whose query cannot be read for signing. It does
// not repeat the query, which may hold a SAS signature.
var errQuery = errors.New("sharedkey: the request's query string does not parse")
