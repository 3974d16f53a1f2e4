package backup

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/tablekit/tablekit/internal/errmap"
	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/query"
)

// Share makes Run take one part of a backup spread over Count machines
// (docs/backup.md's Shares): each backs up the entities of its
// PartitionKey range and stores its files and a share manifest; the one
// that finds every share landed writes the backup's manifest, so the
// backup is listed and restorable only once all are.
type Share struct {
	// ID is the backup's ID, the same on every share: an ID as Run makes
	// them (a UTC time in the form 20261126T031500.000Z), after the last
	// backup's.
	ID string
	// Index is this share's number, 1 to Count.
	Index, Count int
	// From and To bound the share's PartitionKeys, From <= PK < To in the
	// service's key order; "" is the start for From and the end for To.
	// The shares' ranges, in Index order, must tile the key space; From
	// equal to To is an empty share.
	From, To string
}

// shareDir holds the share manifests of the backups being taken.
const shareDir = "shares/"

func (s *Share) check() error {
	switch {
	case s.Count < 1 || s.Index < 1 || s.Index > s.Count:
		return errmap.Invalidf("backup", "Share", "index %d of %d: want 1 <= Index <= Count", s.Index, s.Count)
	case s.To != "" && wire.CompareUTF16(s.From, s.To) > 0:
		return errmap.Invalidf("backup", "Share", "range [%q, %q) ends before it starts", s.From, s.To)
	case (s.Index == 1) != (s.From == "") || (s.Index == s.Count) != (s.To == ""):
		return errmap.Invalid("backup", "Share", "only the first share starts at the start and only the last ends at the end")
	}
	if t, err := time.Parse(IDLayout, s.ID); err != nil || t.Format(IDLayout) != s.ID {
		return errmap.Invalidf("backup", "Share", "ID %q is not a backup ID such as 20261126T031500.000Z", s.ID)
	}
	return nil
}

func (s *Share) started() time.Time {
	t, _ := time.Parse(IDLayout, s.ID)
	return t.UTC()
}

// holds reports whether k is in the share's range; a nil share holds every key.
func (s *Share) holds(k key) bool {
	return s == nil || (wire.CompareUTF16(k.pk, s.From) >= 0 && (s.To == "" || wire.CompareUTF16(k.pk, s.To) < 0))
}

// filter is the share's range as a query filter.
func (s *Share) filter() query.Filter {
	fs := []query.Filter{}
	if s.From != "" {
		fs = append(fs, query.PartitionKey.Ge(query.String(s.From)))
	}
	if s.To != "" {
		fs = append(fs, query.PartitionKey.Lt(query.String(s.To)))
	}
	return query.And(fs...)
}

func (s *Share) dir() string {
	return fmt.Sprintf("%s%s/share-%d-of-%d/", filesDir, s.ID, s.Index, s.Count)
}

func (s *Share) manifest() string {
	return fmt.Sprintf("%s%s/%d-of-%d.json", shareDir, s.ID, s.Index, s.Count)
}

// shareInfo is a share manifest: the share's part of the backup's Info.
type shareInfo struct {
	Share Share `json:"share"`
	Info  Info  `json:"info"`
}

// completeShares writes the backup's manifest from the share manifests
// when all sh.Count are there, else returns how many are missing.
func completeShares(ctx context.Context, st Store, sh *Share) (Info, int, error) {
	names, err := st.List(ctx, shareDir+sh.ID+"/")
	if err != nil {
		return Info{}, 0, err
	}
	parts := make([]*shareInfo, sh.Count)
	for _, n := range names {
		p, err := readShare(ctx, st, n)
		if err != nil {
			return Info{}, 0, err
		}
		s := p.Share
		if s.Count != sh.Count || s.Index < 1 || s.Index > s.Count || n != s.manifest() {
			return Info{}, 0, errmap.Invalidf("backup", "Share", "%s is a share of %d, this run one of %d: every share of a backup needs the same Count", n, s.Count, sh.Count)
		}
		parts[s.Index-1] = p
	}
	missing := 0
	for _, p := range parts {
		if p == nil {
			missing++
		}
	}
	if missing > 0 {
		return Info{}, missing, nil
	}
	in := Info{Format: manifestFormat, ID: sh.ID, Shares: sh.Count}
	for i, p := range parts {
		pi := p.Info
		if i > 0 && parts[i-1].Share.To != p.Share.From {
			return Info{}, 0, errmap.Invalidf("backup", "Share", "shares %d and %d of %s do not meet: [%q, %q) then [%q, %q)",
				i, i+1, sh.ID, parts[i-1].Share.From, parts[i-1].Share.To, p.Share.From, p.Share.To)
		}
		if i == 0 {
			in.Table, in.Full, in.Base, in.Changes, in.Started, in.Finished = pi.Table, pi.Full, pi.Base, pi.Changes, pi.Started, pi.Finished
		} else if pi.Table != in.Table || pi.Full != in.Full || pi.Base != in.Base {
			return Info{}, 0, errmap.Invalidf("backup", "Share", "share %d of %s backed up table %q (full %v, base %q), share 1 %q (full %v, base %q)",
				i+1, sh.ID, pi.Table, pi.Full, pi.Base, in.Table, in.Full, in.Base)
		}
		if pi.Started.Before(in.Started) {
			in.Started = pi.Started
		}
		if pi.Finished.After(in.Finished) {
			in.Finished = pi.Finished
		}
		in.Written += pi.Written
		in.Deleted += pi.Deleted
		in.Entities += pi.Entities
		in.Bytes += pi.Bytes
		in.Files = append(in.Files, pi.Files...)
	}
	b, err := json.MarshalIndent(&in, "", "  ")
	if err != nil {
		return Info{}, 0, err
	}
	err = st.Create(ctx, manifestName(in.ID), bytes.NewReader(append(b, '\n')))
	if errors.Is(err, fs.ErrExist) {
		// Another share committed first: the backup is its manifest.
		got, err := readManifest(ctx, st, manifestName(in.ID))
		return got, 0, err
	}
	if err != nil {
		return Info{}, 0, err
	}
	return in, 0, nil
}

func readShare(ctx context.Context, st Store, name string) (*shareInfo, error) {
	rc, err := st.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	var p shareInfo
	dec := json.NewDecoder(rc)
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, &CorruptError{File: name, Reason: "not a share manifest", Err: err}
	}
	return &p, nil
}

// clearShare deletes what an earlier, killed attempt of this share
// stored, so that its files are this run's only.
func clearShare(ctx context.Context, st Store, sh *Share) error {
	names, err := st.List(ctx, sh.dir())
	if err != nil {
		return err
	}
	for _, n := range names {
		if err := st.Delete(ctx, n); err != nil {
			return err
		}
	}
	return nil
}
