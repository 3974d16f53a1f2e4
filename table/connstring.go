package table

import (
	"fmt"
	"log/slog"
)

// ConnectionString is a parsed connection string, to build your own
// aztables client or sign a SAS (package sas) for the same account. It
// never prints its key: String, every fmt verb and slog show "REDACTED".
type ConnectionString struct {
	// Endpoint is the table service URL without a trailing slash, e.g.
	// https://acct.table.core.windows.net or Azurite's
	// http://127.0.0.1:10002/devstoreaccount1.
	Endpoint string
	// SecondaryEndpoint is TableSecondaryEndpoint, when the string has one.
	SecondaryEndpoint string
	// AccountName and AccountKey are empty for a SAS connection string.
	AccountName string
	AccountKey  string
	// SAS is the SharedAccessSignature query, without "?", if any.
	SAS string
}

// ParseConnectionString parses the forms NewService accepts, including
// "UseDevelopmentStorage=true", which aztables does not understand. Errors
// never repeat the string.
func ParseConnectionString(s string) (ConnectionString, error) {
	cs, err := parseConnectionString(s)
	if err != nil {
		return ConnectionString{}, err
	}
	return ConnectionString{Endpoint: cs.endpoint, SecondaryEndpoint: cs.secondary, AccountName: cs.account, AccountKey: cs.key, SAS: cs.sas}, nil
}

// String shows the endpoint and account, never the key or the SAS.
func (c ConnectionString) String() string {
	s := "TableEndpoint=" + c.Endpoint
	if c.SecondaryEndpoint != "" {
		s += ";TableSecondaryEndpoint=" + c.SecondaryEndpoint
	}
	if c.AccountName != "" {
		s += ";AccountName=" + c.AccountName
	}
	if c.AccountKey != "" {
		s += ";AccountKey=REDACTED"
	}
	if c.SAS != "" {
		s += ";SharedAccessSignature=REDACTED"
	}
	return s
}

// Format makes every fmt verb (%v, %+v, %#v, %s) print String.
func (c ConnectionString) Format(f fmt.State, _ rune) { _, _ = f.Write([]byte(c.String())) }

// LogValue makes log/slog print String.
func (c ConnectionString) LogValue() slog.Value { return slog.StringValue(c.String()) }
