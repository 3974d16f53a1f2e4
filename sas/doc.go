// Package sas issues shared access signatures (SAS) for Azure Table Storage
// that the service accepts, that grant no more than asked, and that never
// leak the account key.
//
// # Where a SAS fits
//
// A SAS is a signed query string that lets its holder call the Table service
// directly, without the account key and without a proxy service in between:
// a browser reads one customer's rows, a device appends its readings. The
// server that holds the key issues tokens; clients only ever see tokens.
// Because a token is a bearer secret that cannot be recalled (unless it
// refers to a stored access policy), issue it with
//
//   - least privilege: only the Permissions the holder needs (Read for a
//     viewer, Add for a reporting device), on one table, ideally narrowed to
//     a PartitionKey/RowKey range;
//   - a short expiry: minutes to hours, renewed by asking the issuer again
//     (see Parsed.ExpiresWithin);
//   - https only, which is the default; and, where the callers are known, an
//     IPRange.
//
// # Table SAS
//
// A [TableSignature] describes a service SAS for one table: what its holder
// may do (Permissions), when (Start, Expiry), on which entities (the key
// range), from where (IP) and how (Protocol). [TableSignature.Sign]
// validates it and returns the query parameters (sv, tn, sp, st, se, spk,
// srk, epk, erk, sip, spr, si, sig, as applicable), and TableURL joins them
// to the endpoint:
//
//	cred, _ := sas.NewCredential(account, key)
//	token, err := sas.TableSignature{
//		Table:             "orders",
//		Permissions:       sas.Read,
//		Expiry:            time.Now().Add(time.Hour),
//		StartPartitionKey: customerID,
//		EndPartitionKey:   customerID,
//	}.Sign(cred)
//	u, err := sas.TableURL("https://acct.table.core.windows.net", "orders", token)
//	client, err := aztables.NewClientWithNoCredential(u, nil)
//
// Validation happens before signing and reports a *tablekit.ValidationError that
// wraps ErrInvalid and names the field: an empty permission set, a missing
// expiry (both are allowed when a stored access policy supplies them), an
// expiry not after the start, an invalid table name, range keys with
// forbidden characters or an end before the start, IPv6 or reversed
// addresses, an unknown protocol or version.
//
// # Key ranges
//
// [TableSignature].StartPartitionKey, StartRowKey, EndPartitionKey and
// EndRowKey limit a token to the entities from (StartPartitionKey, StartRowKey)
// to (EndPartitionKey, EndRowKey) inclusive, in key order; equal partition keys
// give a one-partition token. They are signed and sent as spk, srk, epk and
// erk. (aztables v1.4.1 signs them but does not send them, so the service
// recomputes a different signature and refuses every such token.) The service
// enforces the range. The Azurite emulator only checks that the range is signed
// and does not enforce it, so a test against Azurite cannot show a range
// denial: test range denials against the service.
//
// # Clock skew and expiry
//
// Start and Expiry are converted to UTC and truncated to the second, which
// is what the format carries. When Start is not set it is backdated by
// ClockSkew (DefaultClockSkew, 15 minutes), so that a token is valid at once
// on a service whose clock is a little behind the issuer's; a negative
// ClockSkew sends no start at all. Expiry is the time to keep short.
//
// # Stored access policies and revocation
//
// A SAS is valid until it expires, whoever holds it. To be able to withdraw
// tokens early, store a [Policy] on the table with [SetPolicies] and name it in
// TableSignature.Identifier; setting the list without it, or with it changed,
// then stops every token that names it (the service can take up to 30 seconds;
// Azurite applies it at once). A table holds at most MaxPolicies (5) policies,
// which SetPolicies checks before writing. Fields of a Policy left zero are not
// stored; the SAS must then carry them. A field may be set in the policy or in
// the SAS, not both: with an Identifier, Sign sends no default start and
// requires neither permissions nor expiry. Azurite requires a policy to set all
// three of Start, Expiry and Permissions. Policies and SetPolicies read and
// replace the table's whole list, as the service's Get and Set Table ACL do;
// their service errors are *tablekit.ServiceError values (errors.Is(err,
// tablekit.ErrForbidden)). Cosmos DB for Table has no stored access policies:
// there they are tablekit.ErrUnsupported, and nothing is sent.
//
// ServiceCredential gives the Credential of a table.Service made with a
// shared key, so a program that connected once need not parse its
// connection string again to sign.
//
// # Account SAS
//
// An AccountSignature signs an account SAS for the table service (ss=t):
// service operations, table creation and deletion, and entity operations in
// every table, as chosen by ResourceTypes and AccountPermissions. It cannot
// be narrowed to keys or revoked by a policy, so prefer a table SAS for
// clients. A service client takes it as endpoint + "/?" + token.Encode(),
// e.g. with aztables.NewServiceClientWithNoCredential. Unlike aztables, the
// chosen Protocol is honoured (HTTPSAndHTTP is possible for the emulator);
// the default is https only.
//
// # Reading a SAS back
//
// [Parse] reads a SAS URL
// (https://acct.table.core.windows.net/t?sv=...&sig=...) or query string into a
// [Parsed] value with typed fields. It checks the structure (a signature and a
// version present, each parameter at most once, times, addresses and letters
// well formed); unknown parameters are kept in String and otherwise ignored.
// Its String method replaces the signature with "REDACTED" and it keeps no
// signature at all, so it is the form to log. [Parsed.ExpiresWithin] tells when
// to fetch a fresh token; when the token carries no expiry its stored access
// policy decides, which is not visible in the token, so it reports false.
//
// # Secrets and errors
//
// A [Credential] exists on the server only: a SAS exists so that the key never
// reaches a browser or a device. It prints as its account name and "REDACTED"
// under every fmt verb (String and GoString included) and in log/slog, so it is
// safe in logs and errors; the zero value has no key. No error from this
// package contains a key, a signature or any other value it was given: a
// *tablekit.ValidationError names the field or parameter and the rule. When the service refuses a token,
// tablekit.ErrForbidden matches the 403 (permission mismatch, expired or
// revoked token, wrong signature, protocol or address mismatch); errors.As
// still reaches the *azcore.ResponseError and its ErrorCode.
//
// # Versions
//
// Tokens are signed for DefaultVersion (2019-02-02, the Table service's REST
// version) unless Version says otherwise. The table SAS string-to-sign is
// the one documented for 2015-04-05 and later (permissions, start, expiry,
// /table/<account>/<lowercased table>, identifier, IP, protocol, version,
// startpk, startrk, endpk, endrk); the account SAS one adds an empty
// encryption scope line from 2020-12-06. Older versions are refused.
//
// # TableURL in detail
//
// The result is ready for aztables.NewClientWithNoCredential. It is an error
// (wrapping ErrInvalid) to pass an endpoint with a query or fragment, a
// token without a signature, or an https-only token with an http endpoint,
// which the service would refuse.
package sas
