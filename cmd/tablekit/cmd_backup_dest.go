package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/backup"
	"github.com/tablekit/tablekit/backup/blobstore"
	"github.com/tablekit/tablekit/table"
)

// isBlobDest says whether DEST names a blob container (a URL) rather than
// a directory.
func isBlobDest(dest string) bool {
	return strings.HasPrefix(dest, "https://") || strings.HasPrefix(dest, "http://")
}

// openDest opens the store DEST names: a directory, or a blob container
// URL (https://ACCOUNT.blob.core.windows.net/CONTAINER[/PREFIX]) with the
// credentials tables take: a SAS in the URL or --dest-sas, else the
// account key of the connection string when it is the same account, else
// Entra ID (DefaultAzureCredential). cs is the parsed connection string,
// if the command has one.
func openDest(dest, destSAS string, cs *table.ConnectionString) (backup.Store, error) {
	if !isBlobDest(dest) {
		if destSAS != "" {
			return nil, usagef("--dest-sas is for a blob container URL, not the directory %s", dest)
		}
		return backup.Dir(dest), nil
	}
	u, err := url.Parse(dest)
	if err != nil || u.Host == "" {
		return nil, usagef("DEST: not a blob container URL (https://ACCOUNT.blob.core.windows.net/CONTAINER[/PREFIX])")
	}
	if destSAS != "" {
		if u.RawQuery != "" {
			return nil, usagef("DEST already holds a SAS; do not also give --dest-sas")
		}
		u.RawQuery = strings.TrimPrefix(destSAS, "?")
	}
	var st *blobstore.Store
	switch account := destAccount(u); {
	case u.RawQuery != "":
		st, err = blobstore.NewWithSAS(u.String(), nil)
	case cs != nil && cs.AccountKey != "" && strings.EqualFold(cs.AccountName, account):
		st, err = blobstore.NewWithSharedKey(u.String(), cs.AccountName, cs.AccountKey, nil)
	default:
		cred, cerr := azidentity.NewDefaultAzureCredential(nil)
		if cerr != nil {
			return nil, fmt.Errorf("entra ID credentials for %s: %w", account, cerr)
		}
		st, err = blobstore.New(u.String(), cred, nil)
	}
	if errors.Is(err, tablekit.ErrInvalid) {
		return nil, usagef("DEST: %v", err)
	}
	return st, err
}

// destAccount is the account a blob URL names: the host's first label, or
// for an emulator's path-style URL (an IP address or localhost), the first
// path element.
func destAccount(u *url.URL) string {
	host := u.Hostname()
	if host == "localhost" || net.ParseIP(host) != nil {
		first, _, _ := strings.Cut(strings.TrimPrefix(u.Path, "/"), "/")
		return first
	}
	first, _, _ := strings.Cut(host, ".")
	return first
}

// backupUsage turns the backup package's refusal of an option or of the
// store (a *tablekit.ValidationError of its own operations, made before any
// request) into a command-line error: exit status 2.
func backupUsage(err error) error {
	var ve *tablekit.ValidationError
	if errors.As(err, &ve) {
		switch ve.Operation {
		case "backup", "restore", "read", "keep", "store":
			return &usageError{err.Error()}
		}
	}
	return err
}

// hookStore applies the tests' TABLEKIT_TEST_STOP (stophook.go) to the
// files a backup stores: each Put is a step, and a Put done a save, so
// kill:N stops the process after N files are stored and before the next
// (the manifest is the last), as a crash between two writes would.
func hookStore(e *env, st backup.Store) (backup.Store, error) {
	h, err := parseStopHook(e.getenv(stopEnv))
	if h == nil || err != nil {
		return st, err
	}
	return &stepStore{Store: st, h: h}, nil
}

type stepStore struct {
	backup.Store
	h *stopHook
}

func (s *stepStore) Put(ctx context.Context, name string, r io.Reader) error {
	s.h.progressed()
	err := s.Store.Put(ctx, name, r)
	if err == nil {
		s.h.saved()
	}
	return err
}

func (s *stepStore) Create(ctx context.Context, name string, r io.Reader) error {
	s.h.progressed()
	err := s.Store.Create(ctx, name, r)
	if err == nil {
		s.h.saved()
	}
	return err
}

// TempFiles passes on the directory store's leftovers of killed writes, so
// that a run under the hook cleans them as any run does.
func (s *stepStore) TempFiles(ctx context.Context) ([]string, error) {
	if ts, ok := s.Store.(interface {
		TempFiles(context.Context) ([]string, error)
	}); ok {
		return ts.TempFiles(ctx)
	}
	return nil, nil
}
