package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/tablekit/tablekit/internal/keyspace"
	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/query"
)

// share is one of n parts of a plan (--segment i/n), numbered 1 to n. The
// zero share is the whole key space.
type share struct{ I, N int }

func (s share) String() string { return fmt.Sprintf("%d/%d", s.I, s.N) }

// envShare is the --segment form that reads a 0-based index, such as the
// JOB_COMPLETION_INDEX of a Kubernetes Indexed Job, from the environment.
const envShare = "env:"

// parseShare reads --segment: "" (the whole key space), i/n, or env:VAR/n
// for share $VAR+1 of n, so that a pod's 0-based index needs no
// arithmetic.
func parseShare(s string, getenv func(string) string) (share, error) {
	if s == "" {
		return share{1, 1}, nil
	}
	a, b, ok := strings.Cut(s, "/")
	n, err := strconv.Atoi(b)
	if !ok || err != nil || n < 1 {
		return share{}, fmt.Errorf("--segment %q: want i/n with 1 <= i <= n, e.g. 2/4, or env:VAR/n", s)
	}
	if name, ok := strings.CutPrefix(a, envShare); ok {
		v := getenv(name)
		if name == "" || v == "" {
			return share{}, fmt.Errorf("--segment %q: the environment variable %q is not set", s, name)
		}
		i, err := strconv.Atoi(v)
		if err != nil || i < 0 || i >= n {
			return share{}, fmt.Errorf("--segment %q: %s is %q; want a 0-based index, 0 to %d", s, name, v, n-1)
		}
		return share{i + 1, n}, nil
	}
	i, err := strconv.Atoi(a)
	if err != nil || i < 1 || i > n {
		return share{}, fmt.Errorf("--segment %q: want i/n with 1 <= i <= n, e.g. 2/4, or env:VAR/n", s)
	}
	return share{i, n}, nil
}

// planVersion is bumped when a plan file's meaning changes.
const planVersion = 1

// sharePlan is what tablekit plan writes: where a table's keys are cut
// into shares. Every machine given the file reads its share between the
// same bounds, so the shares tile the key space exactly once whatever
// the table does meanwhile; machines that each probed a table being
// written could cut it in different places.
type sharePlan struct {
	Version   int    `json:"version"`
	Table     string `json:"table"`
	Partition string `json:"partition,omitempty"`
	Prefix    string `json:"prefix,omitempty"`
	// Split is the property the bounds are values of: PartitionKey, or
	// RowKey within Partition.
	Split  string `json:"split"`
	Shares int    `json:"shares"`
	// Bounds are the Shares-1 bounds between shares, in key order. A bound
	// repeated makes an empty share: the keys could not be cut finer (a
	// partition is never split).
	Bounds []string `json:"bounds"`
	// Estimates is the entities estimated in each share when the plan was
	// made; Exact says they were counted.
	Estimates []int64   `json:"estimates,omitempty"`
	Exact     bool      `json:"exact,omitempty"`
	Requests  int       `json:"requests"`
	Created   time.Time `json:"created"`
}

// scopeRange is the key range a scope (--partition, --prefix) reads, on
// the split property.
func scopeRange(prefix string) keyspace.Range {
	r := keyspace.Range{Lo: prefix}
	if end, ok := wire.PrefixEnd(prefix); ok && prefix != "" {
		r.Hi, r.HasHi = end, true
	}
	return r
}

// check refuses a plan that does not fit the run: another table, scope or
// number of shares, or bounds that would not tile the scope.
func (p *sharePlan) check(path, table, partition, prefix string, sh share) error {
	switch {
	case p.Version != planVersion:
		return fmt.Errorf("plan %s: version %d, want %d", path, p.Version, planVersion)
	case p.Table != table:
		return fmt.Errorf("plan %s is of table %s, not %s", path, p.Table, table)
	case p.Partition != partition || p.Prefix != prefix:
		return fmt.Errorf("plan %s was made with --partition %q --prefix %q; give the same", path, p.Partition, p.Prefix)
	case p.Shares != sh.N:
		return fmt.Errorf("plan %s has %d shares, not %d: give --segment i/%d", path, p.Shares, sh.N, p.Shares)
	case len(p.Bounds) != p.Shares-1:
		return fmt.Errorf("plan %s: %d bounds for %d shares", path, len(p.Bounds), p.Shares)
	case p.Split != string(splitOf(partition)):
		return fmt.Errorf("plan %s splits %s, want %s", path, p.Split, splitOf(partition))
	}
	r := scopeRange(prefix)
	for i, b := range p.Bounds {
		if (b != r.Lo && !r.Cuts(b)) || (i > 0 && wire.CompareUTF16(p.Bounds[i-1], b) > 0) {
			return fmt.Errorf("plan %s: bound %q is out of order or outside the scope", path, b)
		}
	}
	return nil
}

// id names the plan in a checkpoint: a run resumed with another plan is
// refused.
func (p *sharePlan) id() string {
	b, _ := json.Marshal([]any{p.Table, p.Partition, p.Prefix, p.Split, p.Bounds})
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:6])
}

// of returns share sh's range of the split property.
func (p *sharePlan) of(sh share) keyspace.Range {
	r := scopeRange(p.Prefix)
	if sh.I > 1 {
		r.Lo, r.After = p.Bounds[sh.I-2], false
	}
	if sh.I < sh.N {
		r.Hi, r.HasHi = p.Bounds[sh.I-1], true
	}
	return r
}

// splitOf is the property a scope's shares and segments cut.
func splitOf(partition string) query.Property {
	if partition != "" {
		return query.RowKey
	}
	return query.PartitionKey
}

// readPlan reads a plan file.
func readPlan(path string) (*sharePlan, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("plan %s does not exist: make it with tablekit plan TABLE --shares N -o %s", path, path)
	}
	if err != nil {
		return nil, err
	}
	var p sharePlan
	if err := json.Unmarshal(b, &p); err != nil {
		return nil, fmt.Errorf("plan %s: unreadable: %v", path, err)
	}
	return &p, nil
}
