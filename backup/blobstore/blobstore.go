// Package blobstore keeps backups in an Azure Blob Storage container (or
// Azurite's blob service) through Microsoft's azblob package: the
// backup.Store of a container URL, with the credentials tables take (an
// account key, a SAS, an azcore.TokenCredential such as azidentity's).
//
// It is a package of its own so that importing package backup does not
// pull azblob into programs that keep their backups in a directory.
//
//	st, err := blobstore.NewWithSharedKey("https://acct.blob.core.windows.net/backups/orders", "acct", key, nil)
//	id, err := backup.Run(ctx, orders, st, nil)
//
// Each file is a block blob. Put uploads its blocks and commits them with
// one final request, so a blob appears whole or not at all, as
// backup.Store asks. The container is created by the first Put that finds
// it missing (with a SAS, only an account SAS may create one).
package blobstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/tablekit/tablekit/backup"
	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/internal/wire"
)

// Options tune a Store; nil means defaults. They are never modified.
type Options struct {
	// Client is passed to azblob's container client (its retry policy,
	// transport, cloud); the zero value means azblob's defaults.
	Client container.ClientOptions
}

// Store is a backup.Store over one container and an optional prefix
// (a "folder") in it; an azcore.ResponseError from azblob comes back in a
// *tablekit.ServiceError. Its methods may be called from any goroutine.
type Store struct {
	c      *container.Client
	prefix string // "" or ending in "/"
}

var _ backup.Store = (*Store)(nil)

// location is a container URL taken apart: the container's URL (with any
// SAS query) and the prefix of the names in it.
type location struct {
	container string
	prefix    string
}

// parse splits https://ACCOUNT.blob.core.windows.net/CONTAINER[/PREFIX]
// (or an emulator's path-style http://127.0.0.1:10000/ACCOUNT/CONTAINER[/PREFIX])
// into the container's URL and the prefix. The query (a SAS) stays on the
// container's URL; it never appears in an error.
func parse(op, raw string) (location, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return location{}, errmap.Invalid(op, "url", "want https://ACCOUNT.blob.core.windows.net/CONTAINER[/PREFIX]")
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	host := u.Hostname()
	first := 0
	if host == "localhost" || net.ParseIP(host) != nil {
		first = 1 // path-style: the account comes first
	}
	if len(parts) <= first || parts[first] == "" {
		return location{}, errmap.Invalid(op, "url", "names no container")
	}
	if u.Scheme == "http" && !loopback(host) {
		return location{}, errmap.Invalid(op, "url", "http is only for a loopback emulator; use https")
	}
	c := *u
	c.Path = "/" + strings.Join(parts[:first+1], "/")
	c.RawPath = ""
	loc := location{container: c.String()}
	if rest := parts[first+1:]; len(rest) > 0 {
		loc.prefix = strings.Join(rest, "/") + "/"
		if err := backup.CheckName(loc.prefix + "x"); err != nil {
			return location{}, errmap.Invalid(op, "url", "its prefix has an empty, . or .. element")
		}
	}
	return loc, nil
}

func loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// clientOptions adds the policy that takes the query (a SAS) out of the
// URLs net/http puts in its errors.
func clientOptions(o *Options) *container.ClientOptions {
	var co container.ClientOptions
	if o != nil {
		co = o.Client
	}
	co.PerRetryPolicies = append(append([]policy.Policy(nil), co.PerRetryPolicies...), redact{})
	return &co
}

type redact struct{}

func (redact) Do(req *policy.Request) (*http.Response, error) {
	resp, err := req.Next()
	return resp, wire.RedactURLError(err)
}

// New is the Store of containerURL (https://ACCOUNT.blob.core.windows.net/CONTAINER[/PREFIX])
// authenticated by a token credential (Microsoft Entra ID, e.g. azidentity's).
func New(containerURL string, cred azcore.TokenCredential, o *Options) (*Store, error) {
	loc, err := parse("blobstore.New", containerURL)
	if err != nil {
		return nil, err
	}
	if cred == nil {
		return nil, errmap.Invalid("blobstore.New", "cred", "is nil")
	}
	c, err := container.NewClient(loc.container, cred, clientOptions(o))
	if err != nil {
		return nil, fmt.Errorf("blobstore: %w", err)
	}
	return &Store{c: c, prefix: loc.prefix}, nil
}

// NewWithSharedKey is the Store of containerURL signed with an account's key.
func NewWithSharedKey(containerURL, account, key string, o *Options) (*Store, error) {
	loc, err := parse("blobstore.NewWithSharedKey", containerURL)
	if err != nil {
		return nil, err
	}
	cred, err := container.NewSharedKeyCredential(account, key)
	if err != nil {
		return nil, errmap.Invalid("blobstore.NewWithSharedKey", "key", "is not an account key (base64)")
	}
	c, err := container.NewClientWithSharedKeyCredential(loc.container, cred, clientOptions(o))
	if err != nil {
		return nil, fmt.Errorf("blobstore: %w", err)
	}
	return &Store{c: c, prefix: loc.prefix}, nil
}

// NewWithSAS is the Store of a container URL carrying a SAS in its query
// (https://ACCOUNT.blob.core.windows.net/CONTAINER[/PREFIX]?sv=...&sig=...):
// a container SAS with read, add, create, write, delete and list, or an
// account SAS with the same.
func NewWithSAS(containerSASURL string, o *Options) (*Store, error) {
	loc, err := parse("blobstore.NewWithSAS", containerSASURL)
	if err != nil {
		return nil, err
	}
	if u, _ := url.Parse(loc.container); u == nil || u.Query().Get("sig") == "" {
		return nil, errmap.Invalid("blobstore.NewWithSAS", "url", "carries no SAS (sig=)")
	}
	c, err := container.NewClientWithNoCredential(loc.container, clientOptions(o))
	if err != nil {
		return nil, fmt.Errorf("blobstore: %w", err)
	}
	return &Store{c: c, prefix: loc.prefix}, nil
}

// NewFromConnectionString is the Store of container (and prefix, "" for
// none) in the account a connection string names: its BlobEndpoint, or the
// one its AccountName and EndpointSuffix make, with its AccountKey or SAS.
func NewFromConnectionString(connectionString, containerName, prefix string, o *Options) (*Store, error) {
	const op = "blobstore.NewFromConnectionString"
	if containerName == "" || strings.Contains(containerName, "/") {
		return nil, errmap.Invalid(op, "container", "want one container name")
	}
	if prefix = strings.Trim(prefix, "/"); prefix != "" {
		if err := backup.CheckName(prefix); err != nil {
			return nil, err
		}
		prefix += "/"
	}
	c, err := container.NewClientFromConnectionString(connectionString, containerName, clientOptions(o))
	if err != nil {
		// The parser's errors do not quote the string, which holds a key.
		return nil, errmap.Invalid(op, "connectionString", "cannot be parsed: "+err.Error())
	}
	return &Store{c: c, prefix: prefix}, nil
}

// mapErr puts an azblob error into tablekit's model (a
// *tablekit.ServiceError keeping the azcore error) naming the file; a
// missing blob also matches fs.ErrNotExist, and one Create found, fs.ErrExist,
// as backup.Store asks.
func (s *Store) mapErr(op, name string, err error) error {
	if err == nil {
		return nil
	}
	m := errmap.Map(op, err)
	if bloberror.HasCode(err, bloberror.BlobNotFound) {
		return fmt.Errorf("blobstore: %s %s: %w", op, name, errors.Join(fs.ErrNotExist, m))
	}
	if bloberror.HasCode(err, bloberror.BlobAlreadyExists, bloberror.ConditionNotMet) {
		return fmt.Errorf("blobstore: %s %s: %w", op, name, errors.Join(fs.ErrExist, m))
	}
	return fmt.Errorf("blobstore: %s %s: %w", op, name, m)
}

// Put uploads name as a block blob, committed whole by its last request.
// When the container is missing, Put creates it and uploads again if r is
// an io.ReadSeeker; otherwise it returns the service's error.
func (s *Store) Put(ctx context.Context, name string, r io.Reader) error {
	return s.upload(ctx, "put", name, r, nil)
}

// Create uploads name as Put does with If-None-Match: *, so the commit of
// its blocks fails when the blob exists: of two writers one wins, and the
// other gets an error matching fs.ErrExist.
func (s *Store) Create(ctx context.Context, name string, r io.Reader) error {
	star := azcore.ETagAny
	return s.upload(ctx, "create", name, r, &blob.AccessConditions{
		ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfNoneMatch: &star},
	})
}

func (s *Store) upload(ctx context.Context, op, name string, r io.Reader, ac *blob.AccessConditions) error {
	if err := backup.CheckName(name); err != nil {
		return err
	}
	rs, seekable := r.(io.ReadSeeker)
	bb := s.c.NewBlockBlobClient(s.prefix + name)
	o := &blockblob.UploadStreamOptions{AccessConditions: ac}
	_, err := bb.UploadStream(ctx, r, o)
	if bloberror.HasCode(err, bloberror.ContainerNotFound) && seekable {
		if _, cerr := s.c.Create(ctx, nil); cerr != nil && !bloberror.HasCode(cerr, bloberror.ContainerAlreadyExists) {
			return s.mapErr("create container for", name, cerr)
		}
		if _, serr := rs.Seek(0, io.SeekStart); serr != nil {
			return fmt.Errorf("blobstore: %s %s: %w", op, name, serr)
		}
		_, err = bb.UploadStream(ctx, rs, o)
	}
	return s.mapErr(op, name, err)
}

// Get downloads name; a broken download is resumed where it stopped by
// azblob's retry reader.
func (s *Store) Get(ctx context.Context, name string) (io.ReadCloser, error) {
	if err := backup.CheckName(name); err != nil {
		return nil, err
	}
	resp, err := s.c.NewBlobClient(s.prefix+name).DownloadStream(ctx, nil)
	if bloberror.HasCode(err, bloberror.ContainerNotFound) {
		// A missing container holds no files, as List has it.
		return nil, fmt.Errorf("blobstore: get %s: %w", name, errors.Join(fs.ErrNotExist, errmap.Map("get", err)))
	}
	if err != nil {
		return nil, s.mapErr("get", name, err)
	}
	return resp.NewRetryReader(ctx, nil), nil
}

// List returns the names under prefix, sorted (the service lists blobs in
// name order); a missing container holds none.
func (s *Store) List(ctx context.Context, prefix string) ([]string, error) {
	full := s.prefix + prefix
	pager := s.c.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Prefix: &full})
	var names []string
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if bloberror.HasCode(err, bloberror.ContainerNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, s.mapErr("list", prefix, err)
		}
		for _, b := range page.Segment.BlobItems {
			if b.Name != nil {
				names = append(names, strings.TrimPrefix(*b.Name, s.prefix))
			}
		}
	}
	return names, nil
}

// Delete removes name; a missing blob is not an error.
func (s *Store) Delete(ctx context.Context, name string) error {
	if err := backup.CheckName(name); err != nil {
		return err
	}
	_, err := s.c.NewBlobClient(s.prefix+name).Delete(ctx, nil)
	if bloberror.HasCode(err, bloberror.BlobNotFound, bloberror.ContainerNotFound) {
		return nil
	}
	return s.mapErr("delete", name, err)
}
