package sas

import (
	"net/url"
	"slices"
	"strings"
	"time"
)

// Kind tells a table (service) SAS from an account SAS.
type Kind uint8

// The kinds of SAS that Parse recognizes.
const (
	KindTable   Kind = iota + 1 // a service SAS for one table (tn, no ss/srt)
	KindAccount                 // an account SAS (ss and srt)
)

// Parsed is a SAS read back from a URL or query string, to log (String
// redacts the signature) or check (ExpiresWithin) without the secret: it
// holds no signature, so printing it cannot leak one.
type Parsed struct {
	// Resource is the URL without its query when Parse was given a URL, and
	// empty for a bare query string.
	Resource string
	Kind     Kind
	Version  string // sv

	// Table is tn (table SAS only).
	Table string
	// Permissions is sp of a table SAS; AccountPermissions is sp of an
	// account SAS.
	Permissions        Permissions
	AccountPermissions AccountPermissions
	// Services (ss) and ResourceTypes (srt) belong to an account SAS.
	Services      string
	ResourceTypes ResourceTypes

	// Start and Expiry are st and se in UTC; zero when absent (then a
	// stored access policy may supply them).
	Start, Expiry time.Time

	IP         IPRange  // sip; zero when absent
	Protocol   Protocol // spr; empty when absent, which the service reads as https,http
	Identifier string   // si: the stored access policy

	// The key range of a table SAS (spk, srk, epk, erk).
	StartPartitionKey, StartRowKey, EndPartitionKey, EndRowKey string

	redacted string
}

// parameters are the query parameters of a table or account SAS.
var parameters = []string{"sv", "ss", "srt", "tn", "sp", "st", "se", "spk", "srk", "epk", "erk", "sip", "spr", "si", "sig"}

// Parse reads a SAS URL or its query string, with or without the leading
// "?", and checks its structure but not the signature, which needs the key.
// Errors wrap ErrInvalid and name the parameter and the rule, never a value
// from s (the signature least of all).
func Parse(s string) (*Parsed, error) {
	s = strings.TrimSpace(s)
	p := &Parsed{}
	raw := strings.TrimPrefix(s, "?")
	if l := strings.ToLower(s); strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://") {
		u, err := url.Parse(s)
		if err != nil {
			// url errors quote the input, which holds the signature.
			return nil, invalid("url", "not a URL")
		}
		raw = u.RawQuery
		u.RawQuery, u.Fragment = "", ""
		p.Resource = u.String()
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return nil, invalid("query", "malformed query string")
	}
	for k, vs := range q {
		if len(vs) > 1 {
			if !slices.Contains(parameters, k) {
				k = "query" // a name from the input is named only if it is a SAS's
			}
			return nil, invalid(k, "a parameter appears more than once")
		}
	}
	if q.Get("sig") == "" {
		return nil, invalid("sig", "missing: not a SAS")
	}
	if p.Version = q.Get("sv"); p.Version == "" {
		return nil, invalid("sv", "missing")
	}
	if err := p.parseFields(q); err != nil {
		return nil, err
	}
	q.Set("sig", "REDACTED")
	p.redacted = q.Encode()
	if p.Resource != "" {
		p.redacted = p.Resource + "?" + p.redacted
	}
	return p, nil
}

func (p *Parsed) parseFields(q url.Values) error {
	var err error
	sp := q.Get("sp")
	if q.Has("ss") || q.Has("srt") {
		p.Kind = KindAccount
		if p.Services = q.Get("ss"); p.Services == "" {
			return invalid("ss", "missing in an account SAS")
		}
		rt, err := parseBits(q.Get("srt"), resourceLetters, "srt")
		if err != nil {
			return err
		}
		if p.ResourceTypes = ResourceTypes(rt); rt == 0 {
			return invalid("srt", "missing in an account SAS")
		}
		ap, err := parseBits(sp, accountLetters, "sp")
		if err != nil {
			return err
		}
		p.AccountPermissions = AccountPermissions(ap)
	} else {
		p.Kind = KindTable
		p.Table = q.Get("tn")
		if p.Permissions, err = ParsePermissions(sp); err != nil {
			return invalid("sp", "unknown table permission letter (allowed: raud)")
		}
	}
	if v := q.Get("st"); v != "" {
		if p.Start, err = parseTime("st", v); err != nil {
			return err
		}
	}
	if v := q.Get("se"); v != "" {
		if p.Expiry, err = parseTime("se", v); err != nil {
			return err
		}
	}
	if v := q.Get("sip"); v != "" {
		if p.IP, err = parseIPRange(v); err != nil {
			return err
		}
	}
	if v := q.Get("spr"); v != "" {
		if p.Protocol, err = Protocol(v).resolve(); err != nil {
			return invalid("spr", `must be "https" or "https,http"`)
		}
	}
	p.Identifier = q.Get("si")
	p.StartPartitionKey, p.StartRowKey = q.Get("spk"), q.Get("srk")
	p.EndPartitionKey, p.EndRowKey = q.Get("epk"), q.Get("erk")
	return nil
}

// String returns the SAS as given, with the signature replaced by
// "REDACTED" (parameters in sorted order), safe for logs.
func (p Parsed) String() string { return p.redacted }

// ExpiresWithin reports whether the token's own expiry (se) is less than d
// away, or past: the moment to fetch a fresh one. It is false for a token
// without expiry, whose stored access policy decides.
func (p Parsed) ExpiresWithin(d time.Duration) bool {
	return !p.Expiry.IsZero() && time.Until(p.Expiry) < d
}
