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

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/core"
	"github.com/tablekit/tablekit/internal/errmap"
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

// Service is a connection to one storage account's table service (or one
// Cosmos DB for Table account): cheap to share, safe for concurrent use.
// Make one per account and open tables from it with New.
type Service core.Service

// core is the service's state, for the methods of core.Service.
func (s *Service) core() *core.Service { return (*core.Service)(s) }

// NewService connects with a connection string: the portal's form, a SAS
// form, Cosmos DB's TableEndpoint form, or "UseDevelopmentStorage=true"
// (Azurite on 127.0.0.1:10002). o may be nil.
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
		return nil, errmap.Invalid("", "connection string", "the account key is not valid base64")
	}
	cred, err := aztables.NewSharedKeyCredential(account, key)
	if err != nil {
		return nil, errmap.Invalid("", "connection string", "the account key is not valid base64")
	}
	tr := o.transport()
	// Raw keeps aztables' own credential, with which it signs SAS too.
	raw, err := aztables.NewServiceClientWithSharedKey(serviceURL, cred, clientOptions(o, tr, nil))
	if err != nil {
		return nil, fmt.Errorf("table: service client: %w", err)
	}
	return (*Service)(core.NewService(raw, newConn(o, serviceURL, sk.Policy(), tr), serviceURL, account, key)), nil
}

// NewServiceWithToken connects with a Microsoft Entra ID credential (for
// example from azidentity). Tokens require https.
func NewServiceWithToken(serviceURL string, cred azcore.TokenCredential, o *Options) (*Service, error) {
	serviceURL = strings.TrimSuffix(serviceURL, "/")
	if !strings.HasPrefix(serviceURL, "https://") {
		return nil, errmap.Invalid("", "connection string", "token credentials need an https:// endpoint")
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
	return (*Service)(core.NewService(raw, newConn(o, serviceURL, auth, tr), serviceURL, "", "")), nil
}

// NewServiceWithSAS connects with an account or a table SAS URL. The service
// can do what the SAS permits: with a table SAS, open that table with New.
func NewServiceWithSAS(sasURL string, o *Options) (*Service, error) {
	u, err := url.Parse(sasURL)
	if err != nil || u.Host == "" {
		return nil, errmap.Invalid("", "SAS URL", "not a URL")
	}
	path := strings.TrimSuffix(u.Path, "/")
	if tn := u.Query().Get("tn"); tn != "" {
		// A table SAS: the account endpoint is the path without the table.
		i := strings.LastIndexByte(path, '/')
		if i < 0 || !strings.EqualFold(path[i+1:], tn) {
			return nil, errmap.Invalid("", "SAS URL", "a table SAS (tn) whose path does not end with its table")
		}
		path = path[:i]
	}
	endpoint := u.Scheme + "://" + u.Host + path
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
	return (*Service)(core.NewService(raw, newConn(o, sasURL, nil, tr), endpoint, "", "")), nil
}

// Endpoint is the table service URL, without a trailing slash.
func (s *Service) Endpoint() string {
	if s == nil {
		return ""
	}
	return s.core().Endpoint()
}

// Raw is the underlying aztables service client, for what tablekit does not
// wrap. A zero or nil Service has none: Raw then returns a client whose
// every call fails with tablekit.ErrInvalid before anything is sent, so that
// a Service made without its constructor fails as every method of it does,
// not with a nil pointer panic inside aztables.
func (s *Service) Raw() *aztables.ServiceClient {
	if s == nil || s.core().Raw() == nil {
		return refusingServiceClient()
	}
	return s.core().Raw()
}

// CreateTable creates the table if it does not exist. It returns nil when the
// table exists already, and tablekit.ErrTableBeingDeleted (after the retry policy gave
// up) while a table of that name is still being deleted.
func (s *Service) CreateTable(ctx context.Context, name string) error {
	if err := s.ready(); err != nil {
		return err
	}
	if err := validateTableName(name); err != nil {
		return err
	}
	_, err := s.core().Raw().CreateTable(ctx, name, nil)
	if err = errmap.Map("create table", err); errors.Is(err, tablekit.ErrAlreadyExists) {
		return nil
	}
	return err
}

// DeleteTable deletes the table and everything in it (nil when it does not
// exist): the cheap way to delete many entities at once. The service needs
// 40 s or more before the name can be used again.
func (s *Service) DeleteTable(ctx context.Context, name string) error {
	if err := s.ready(); err != nil {
		return err
	}
	if err := validateTableName(name); err != nil {
		return err
	}
	_, err := s.core().Raw().DeleteTable(ctx, name, nil)
	if err = errmap.Map("delete table", err); errors.Is(err, tablekit.ErrTableNotFound) || errors.Is(err, tablekit.ErrNotFound) {
		return nil
	}
	return err
}

// validateTableName applies the service's rules (wire.CheckTableName).
func validateTableName(name string) error {
	if bad := wire.CheckTableName(name); bad != nil {
		return errmap.Invalidf("", "table name", "%q: %s", name, bad)
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
			return connString{}, errmap.Invalid("", "connection string", "a part has no '='")
		}
		kv[strings.ToLower(strings.TrimSpace(k))] = strings.TrimSpace(v)
	}
	if strings.EqualFold(kv["usedevelopmentstorage"], "true") {
		ep := devEndpoint
		if proxy := kv["developmentstorageproxyuri"]; proxy != "" {
			u, err := url.Parse(proxy)
			if err != nil || u.Host == "" {
				return connString{}, errmap.Invalid("", "connection string", "DevelopmentStorageProxyUri is not a URL")
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
		return connString{}, errmap.Invalid("", "connection string", "TableSecondaryEndpoint is not a URL")
	}
	if cs.endpoint == "" {
		if cs.account == "" {
			return connString{}, errmap.Invalid("", "connection string", "needs TableEndpoint or AccountName")
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
		return connString{}, errmap.Invalid("", "connection string", "TableEndpoint is not a URL")
	}
	if cs.sas == "" && (cs.account == "" || cs.key == "") {
		return connString{}, errmap.Invalid("", "connection string", "needs AccountName and AccountKey, or SharedAccessSignature")
	}
	return cs, nil
}

// checkScheme enforces https unless the host is loopback or the caller
// explicitly allowed plain http (checkKeyedScheme adds the emulator's
// account).
func checkScheme(endpoint string, o *Options) error {
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" {
		return errmap.Invalid("", "connection string", "endpoint is not a URL")
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
		return errmap.Invalidf("", "connection string", "http:// to %s would send data in clear; use https or set Options.AllowInsecureHTTP", host)
	}
	return errmap.Invalidf("", "connection string", "scheme %q (want https)", u.Scheme)
}
