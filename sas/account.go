package sas

import (
	"net/url"
	"strings"
	"time"
)

// AccountSignature describes an account SAS limited to the table service
// (ss=t); prefer a TableSignature when one table is enough. The zero
// Protocol is https only. Sign does not modify the value.
type AccountSignature struct {
	// Permissions the token grants (sp); required.
	Permissions AccountPermissions
	// ResourceTypes the token covers (srt); required. Entity operations need
	// ResourceObject; Azurite also wants ResourceContainer for queries.
	ResourceTypes ResourceTypes

	// Start (st), Expiry (se) and ClockSkew behave as in TableSignature.
	// Expiry is required: an account SAS has no stored policy.
	Start     time.Time
	Expiry    time.Time
	ClockSkew time.Duration

	// IP restricts the addresses the token may be used from (sip).
	IP IPRange
	// Protocol is HTTPSOnly unless set; a zero value is sent as spr=https.
	Protocol Protocol
	// Version is the signed version (sv); zero means DefaultVersion. From
	// 2020-12-06 the string-to-sign carries an (empty) encryption scope line.
	Version string
}

// Sign validates s and signs it with cred, returning the SAS query
// parameters (sv, ss, srt, sp, st, se, sip, spr, sig). Errors wrap
// ErrInvalid and never contain the key or the signature.
func (s AccountSignature) Sign(cred *Credential) (url.Values, error) {
	return s.sign(cred, time.Now)
}

func (s AccountSignature) sign(cred *Credential, now func() time.Time) (url.Values, error) {
	f, err := s.fields(now)
	if err != nil {
		return nil, err
	}
	return signFields(cred, f)
}

type accountFields struct {
	version, services, resourceTypes, permissions string
	start, expiry, ip, protocol                   string
}

func (s AccountSignature) fields(now func() time.Time) (accountFields, error) {
	f := accountFields{version: s.Version, services: "t"}
	if f.version == "" {
		f.version = DefaultVersion
	}
	if err := checkVersion("Version", f.version); err != nil {
		return f, err
	}
	if unknownBits(uint16(s.Permissions), len(accountLetters)) {
		return f, invalid("Permissions", "unknown permission bits")
	}
	if f.permissions = s.Permissions.String(); f.permissions == "" {
		return f, invalid("Permissions", "must not be empty")
	}
	if unknownBits(uint16(s.ResourceTypes), len(resourceLetters)) {
		return f, invalid("ResourceTypes", "unknown resource type bits")
	}
	if f.resourceTypes = s.ResourceTypes.String(); f.resourceTypes == "" {
		return f, invalid("ResourceTypes", "must not be empty")
	}
	if s.Expiry.IsZero() {
		return f, invalid("Expiry", "is required for an account SAS")
	}
	var err error
	if f.start, f.expiry, err = window(s.Start, s.Expiry, s.ClockSkew, true, now); err != nil {
		return f, err
	}
	if err := s.IP.validate(); err != nil {
		return f, err
	}
	f.ip = s.IP.String()
	p, err := s.Protocol.resolve()
	if err != nil {
		return f, err
	}
	f.protocol = string(p)
	return f, nil
}

// stringToSign is the documented account SAS string-to-sign: account name,
// permissions, services, resource types, start, expiry, IP, protocol,
// version, then (from 2020-12-06) the encryption scope, each followed by a
// newline, so the string ends with one.
func (f accountFields) stringToSign(account string) string {
	fields := []string{
		account,
		f.permissions,
		f.services,
		f.resourceTypes,
		f.start,
		f.expiry,
		f.ip,
		f.protocol,
		f.version,
	}
	if f.version >= scopeVersion {
		fields = append(fields, "") // signedEncryptionScope: not used for tables
	}
	return strings.Join(fields, "\n") + "\n"
}

func (f accountFields) values() url.Values {
	v := url.Values{}
	set := func(k, val string) {
		if val != "" {
			v.Set(k, val)
		}
	}
	set("sv", f.version)
	set("ss", f.services)
	set("srt", f.resourceTypes)
	set("sp", f.permissions)
	set("st", f.start)
	set("se", f.expiry)
	set("sip", f.ip)
	set("spr", f.protocol)
	return v
}
