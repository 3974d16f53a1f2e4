package table

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/internal/core"
	"github.com/tablekit/tablekit/internal/sharedkey"
	"github.com/tablekit/tablekit/internal/wire"
)

// Azurite's documented development account, used by UseDevelopmentStorage=true.
const (
	devAccount  = "devstoreaccount1"
	devKey      = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
	devEndpoint = "http://127.0.0.1:10002/devstoreaccount1"
	// devTablePort is the port of Azurite's table service.
	devTablePort = "10002"
)

// ErrInvalidConnectionString reports a connection string that cannot be used.
// The message never repeats the string (it holds the account key).
var ErrInvalidConnectionString = errors.New("table: invalid connection string")

// Service is a connection to one storage account's table service (or one
// Cosmos DB Table API account). It is cheap to share and safe for concurrent
// use; make one per account and open tables from it.
//
// Its data requests (entity reads and writes, queries, transactions) go on
// an azcore pipeline tablekit builds for it; its management calls (tables,
// service properties and stats, access policies) go through aztables
// clients on the same transport and credential.
type Service struct {
	raw      *aztables.ServiceClient
	conn     *core.Conn
	endpoint string
	account  string
	key      string // the shared key, for SharedKey; empty otherwise
}

// NewService connects with a connection string: the form the portal shows
// (AccountName, AccountKey, and EndpointSuffix or TableEndpoint), a
// SharedAccessSignature form, Cosmos DB's TableEndpoint form, or
// "UseDevelopmentStorage=true" for a local Azurite on 127.0.0.1:10002.
// o may be nil.
func NewService(connectionString string, o *Options) (*Service, error) {
	cs, err := parseConnectionString(connectionString)
	if err != nil {
		return nil, err
	}
	if err := checkKeyedScheme(cs.endpoint, cs.account, cs.key, o); err != nil {
		return nil, err
	}
	o = withSecondary(o, cs.secondary)
	if err := checkLocation(cs.endpoint, cs.account, cs.key, o); err != nil {
		return nil, err
	}
	if cs.sas != "" {
		return newSASService(cs.endpoint, cs.endpoint+"?"+cs.sas, o)
	}
	return NewServiceWithSharedKey(cs.endpoint, cs.account, cs.key, o)
}

// NewServiceWithSharedKey connects with an account name and key to a
// service URL such as https://account.table.core.windows.net. Requests are
// signed with Shared Key Lite, as aztables signs them.
func NewServiceWithSharedKey(serviceURL, account, key string, o *Options) (*Service, error) {
	serviceURL = strings.TrimSuffix(serviceURL, "/")
	if err := checkKeyedScheme(serviceURL, account, key, o); err != nil {
		return nil, err
	}
	if err := checkLocation(serviceURL, account, key, o); err != nil {
		return nil, err
	}
	sk, err := sharedkey.New(account, key)
	if err != nil {
		return nil, fmt.Errorf("%w: the account key is not valid base64", ErrInvalidConnectionString)
	}
	cred, err := aztables.NewSharedKeyCredential(account, key)
	if err != nil {
		return nil, fmt.Errorf("%w: the account key is not valid base64", ErrInvalidConnectionString)
	}
	tr := o.transport()
	// Raw keeps aztables' own credential, with which it signs SAS too.
	raw, err := aztables.NewServiceClientWithSharedKey(serviceURL, cred, clientOptions(o, tr, nil))
	if err != nil {
		return nil, fmt.Errorf("table: service client: %w", err)
	}
	return &Service{raw: raw, conn: newConn(o, serviceURL, sk.Policy(), tr), endpoint: serviceURL, account: account, key: key}, nil
}

// NewServiceWithToken connects with a Microsoft Entra ID credential (for
// example from azidentity). Tokens require https. The token's scope is
// aztables': https://storage.azure.com/.default for Table Storage, the
// cloud's Cosmos DB audience (Options.Azcore.Cloud) for Cosmos DB.
func NewServiceWithToken(serviceURL string, cred azcore.TokenCredential, o *Options) (*Service, error) {
	serviceURL = strings.TrimSuffix(serviceURL, "/")
	if !strings.HasPrefix(serviceURL, "https://") {
		return nil, fmt.Errorf("%w: token credentials need an https:// endpoint", ErrInvalidConnectionString)
	}
	if err := checkLocation(serviceURL, "", "", o); err != nil {
		return nil, err
	}
	scope, err := tokenScope(serviceURL, o)
	if err != nil {
		return nil, err
	}
	// One bearer policy, so one token cache, signs both pipelines.
	auth := runtime.NewBearerTokenPolicy(cred, []string{scope}, nil)
	tr := o.transport()
	raw, err := aztables.NewServiceClientWithNoCredential(serviceURL, clientOptions(o, tr, auth))
	if err != nil {
		return nil, fmt.Errorf("table: service client: %w", err)
	}
	return &Service{raw: raw, conn: newConn(o, serviceURL, auth, tr), endpoint: serviceURL}, nil
}

// NewServiceWithSAS connects with an account SAS URL, e.g.
// https://account.table.core.windows.net/?sv=...&sig=...
func NewServiceWithSAS(sasURL string, o *Options) (*Service, error) {
	u, err := url.Parse(sasURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("%w: not a URL", ErrInvalidConnectionString)
	}
	endpoint := u.Scheme + "://" + u.Host + strings.TrimSuffix(u.Path, "/")
	if err := checkScheme(endpoint, o); err != nil {
		return nil, err
	}
	if err := checkLocation(endpoint, "", "", o); err != nil {
		return nil, err
	}
	return newSASService(endpoint, endpoint+"/?"+u.RawQuery, o)
}

// newSASService connects to endpoint with the SAS in sasURL, the endpoint
// with its query: aztables appends request paths before the query, and so
// does the data path.
func newSASService(endpoint, sasURL string, o *Options) (*Service, error) {
	tr := o.transport()
	raw, err := aztables.NewServiceClientWithNoCredential(sasURL, clientOptions(o, tr, nil))
	if err != nil {
		return nil, fmt.Errorf("table: service client: %w", err)
	}
	return &Service{raw: raw, conn: newConn(o, sasURL, nil, tr), endpoint: endpoint}, nil
}

// NewClientFromSASURL returns an aztables client for the table in a table
// SAS URL (https://account.table.core.windows.net/<table>?sv=...&sig=...),
// with tablekit's options. The table's name is returned with it.
func NewClientFromSASURL(tableSASURL string, o *Options) (*aztables.Client, string, error) {
	u, name, err := parseTableSASURL(tableSASURL, o)
	if err != nil {
		return nil, "", err
	}
	c, err := aztables.NewClientWithNoCredential(clientURL(u), ClientOptions(o))
	if err != nil {
		return nil, "", fmt.Errorf("table: client: %w", err)
	}
	return c, name, nil
}

// clientURL is the URL aztables is given for a table SAS URL u from
// parseTableSASURL.
func clientURL(u *url.URL) string { return u.Scheme + "://" + u.Host + u.Path + "?" + u.RawQuery }

// parseTableSASURL checks a table SAS URL and returns it without a
// trailing slash, with the table's name.
func parseTableSASURL(tableSASURL string, o *Options) (*url.URL, string, error) {
	u, err := url.Parse(tableSASURL)
	if err != nil || u.Host == "" {
		return nil, "", fmt.Errorf("%w: not a URL", ErrInvalidConnectionString)
	}
	path := strings.TrimSuffix(u.Path, "/")
	i := strings.LastIndexByte(path, '/')
	if i < 0 {
		return nil, "", fmt.Errorf("%w: the SAS URL names no table", ErrInvalidTableName)
	}
	name := path[i+1:]
	if err := validateTableName(name); err != nil {
		return nil, "", err
	}
	if err := checkScheme(u.Scheme+"://"+u.Host, o); err != nil {
		return nil, "", err
	}
	if err := checkLocation(u.Scheme+"://"+u.Host+path[:i], "", "", o); err != nil {
		return nil, "", err
	}
	return &url.URL{Scheme: u.Scheme, Host: u.Host, Path: path, RawQuery: u.RawQuery}, name, nil
}

// PoolSize is the number of idle connections its transport keeps per
// host (Options.PoolSize), or 0 when a caller-supplied Transport makes it
// unknown. Parallel work above it opens and closes connections.
func (s *Service) PoolSize() int {
	if s == nil || s.conn == nil {
		return 0
	}
	return s.conn.PoolSize()
}

// Endpoint is the table service URL, without a trailing slash.
func (s *Service) Endpoint() string {
	if s == nil {
		return ""
	}
	return s.endpoint
}

// Raw is the underlying aztables service client, for what tablekit does not
// wrap.
func (s *Service) Raw() *aztables.ServiceClient {
	if s == nil {
		return nil
	}
	return s.raw
}

// Client returns an aztables client for the named table that shares this
// service's connection pool, retry policy and credentials; nil for a zero
// Service, which has none.
func (s *Service) Client(name string) *aztables.Client {
	if s.ready() != nil {
		return nil
	}
	return s.raw.NewClient(name)
}

// CreateTable creates the table if it does not exist. It returns nil when the
// table exists already, and ErrTableBeingDeleted (after the retry policy gave
// up) while a table of that name is still being deleted.
func (s *Service) CreateTable(ctx context.Context, name string) error {
	if err := s.ready(); err != nil {
		return err
	}
	if err := validateTableName(name); err != nil {
		return err
	}
	_, err := s.raw.CreateTable(ctx, name, nil)
	if err = MapError("create table", err); errors.Is(err, ErrTableExists) {
		return nil
	}
	return err
}

// DeleteTable deletes the table and everything in it. It returns nil when the
// table does not exist. Deleting a table is the cheap way to delete many
// entities at once (the high-volume delete pattern); the service needs 40 s
// or more before the name can be used again.
func (s *Service) DeleteTable(ctx context.Context, name string) error {
	if err := s.ready(); err != nil {
		return err
	}
	if err := validateTableName(name); err != nil {
		return err
	}
	_, err := s.raw.DeleteTable(ctx, name, nil)
	if err = MapError("delete table", err); errors.Is(err, ErrTableNotFound) || errors.Is(err, ErrNotFound) {
		return nil
	}
	return err
}

// validateTableName applies the service's rules (wire.CheckTableName).
func validateTableName(name string) error {
	if bad := wire.CheckTableName(name); bad != nil {
		return fmt.Errorf("%w: %q: %s", ErrInvalidTableName, name, bad)
	}
	return nil
}

type connString struct {
	endpoint, account, key, sas string
	secondary                   string // TableSecondaryEndpoint, if given
}

// parseConnectionString never puts the string or the key in an error.
func parseConnectionString(s string) (connString, error) {
	kv := map[string]string{}
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return connString{}, fmt.Errorf("%w: a part has no '='", ErrInvalidConnectionString)
		}
		kv[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
	}
	if strings.EqualFold(kv["usedevelopmentstorage"], "true") {
		ep := devEndpoint
		if proxy := kv["developmentstorageproxyuri"]; proxy != "" {
			u, err := url.Parse(proxy)
			if err != nil || u.Host == "" {
				return connString{}, fmt.Errorf("%w: DevelopmentStorageProxyUri is not a URL", ErrInvalidConnectionString)
			}
			// The proxy's port when it has one; the table service's
			// default otherwise.
			port := u.Port()
			if port == "" {
				port = devTablePort
			}
			ep = u.Scheme + "://" + net.JoinHostPort(u.Hostname(), port) + "/" + devAccount
		}
		return connString{endpoint: ep, account: devAccount, key: devKey}, nil
	}
	cs := connString{account: kv["accountname"], key: kv["accountkey"], sas: strings.TrimPrefix(kv["sharedaccesssignature"], "?")}
	cs.endpoint = strings.TrimSuffix(kv["tableendpoint"], "/")
	cs.secondary = strings.TrimSuffix(kv["tablesecondaryendpoint"], "/")
	if u, err := url.Parse(cs.secondary); cs.secondary != "" && (err != nil || u.Host == "") {
		return connString{}, fmt.Errorf("%w: TableSecondaryEndpoint is not a URL", ErrInvalidConnectionString)
	}
	if cs.endpoint == "" {
		if cs.account == "" {
			return connString{}, fmt.Errorf("%w: needs TableEndpoint or AccountName", ErrInvalidConnectionString)
		}
		proto := kv["defaultendpointsprotocol"]
		if proto == "" {
			proto = "https"
		}
		suffix := kv["endpointsuffix"]
		if suffix == "" {
			suffix = "core.windows.net"
		}
		cs.endpoint = proto + "://" + cs.account + ".table." + suffix
	}
	if u, err := url.Parse(cs.endpoint); err != nil || u.Host == "" {
		return connString{}, fmt.Errorf("%w: TableEndpoint is not a URL", ErrInvalidConnectionString)
	}
	if cs.sas == "" && (cs.account == "" || cs.key == "") {
		return connString{}, fmt.Errorf("%w: needs AccountName and AccountKey, or SharedAccessSignature", ErrInvalidConnectionString)
	}
	return cs, nil
}

// checkScheme enforces https unless the host is loopback or the caller
// explicitly allowed plain http (checkKeyedScheme adds the emulator's
// account).
func checkScheme(endpoint string, o *Options) error {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return fmt.Errorf("%w: endpoint is not a URL", ErrInvalidConnectionString)
	}
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if o != nil && o.AllowInsecureHTTP {
			return nil
		}
		host := u.Hostname()
		if host == "localhost" {
			return nil
		}
		if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
			return nil
		}
		return fmt.Errorf("%w: http:// to %s would send data in clear; use https or set Options.AllowInsecureHTTP", ErrInvalidConnectionString, host)
	}
	return fmt.Errorf("%w: scheme %q (want https)", ErrInvalidConnectionString, u.Scheme)
}
