package sas

import (
	"errors"
	"net/netip"
	"strings"

	"github.com/tablekit/tablekit"
)

// IPRange limits a SAS to requests from one IPv4 address (End unset) or an
// inclusive range. The zero value allows any address. The service compares
// the address it sees, so behind NAT or a proxy use the public address.
type IPRange struct {
	Start netip.Addr // the single address, or the first of the range
	End   netip.Addr // the last address of the range; zero for a single address
}

// IsZero reports whether the range is unset (any address allowed).
func (r IPRange) IsZero() bool { return !r.Start.IsValid() && !r.End.IsValid() }

// String returns the sip form: "a.b.c.d" or "a.b.c.d-e.f.g.h"; "" when unset.
func (r IPRange) String() string {
	switch {
	case !r.Start.IsValid():
		return ""
	case !r.End.IsValid() || r.End == r.Start:
		return r.Start.String()
	default:
		return r.Start.String() + "-" + r.End.String()
	}
}

func (r IPRange) validate() error {
	if r.IsZero() {
		return nil
	}
	if !r.Start.IsValid() {
		return invalid("IP", "End is set without Start")
	}
	if !r.Start.Is4() || (r.End.IsValid() && !r.End.Is4()) {
		return invalid("IP", "must be IPv4 addresses (the service takes no IPv6 in sip)")
	}
	if r.End.IsValid() && r.End.Less(r.Start) {
		return invalid("IP", "End must not be before Start")
	}
	return nil
}

func parseIPRange(s string) (IPRange, error) {
	first, last, isRange := strings.Cut(s, "-")
	// netip's errors quote the input: keep only the rule.
	start, err := netip.ParseAddr(first)
	if err != nil {
		return IPRange{}, invalid("sip", "not an IP address or range")
	}
	r := IPRange{Start: start}
	if isRange {
		if r.End, err = netip.ParseAddr(last); err != nil {
			return IPRange{}, invalid("sip", "not an IP address or range")
		}
	}
	if err := r.validate(); err != nil {
		var ve *tablekit.ValidationError
		errors.As(err, &ve)
		return IPRange{}, invalid("sip", ve.Rule)
	}
	return r, nil
}
