package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// savedBounds reads the segment bounds an export saved in its checkpoint.
func savedBounds(t *testing.T, ckpt string) []string {
	t.Helper()
	b, err := os.ReadFile(ckpt)
	if err != nil {
		t.Fatal(err)
	}
	var cp Checkpoint
	if err := json.Unmarshal(b, &cp); err != nil {
		t.Fatal(err)
	}
	var bounds []string
	if err := json.Unmarshal([]byte(cp.Extra[extraSplit]), &bounds); err != nil {
		t.Fatalf("checkpoint %s: %v", extraSplit, err)
	}
	return bounds
}

// TestE2EAdaptiveSplit scans a table whose keys share a long prefix, which
// a split by the alphabet of the keys' first characters put into one
// segment: the split must find the keys (many segments), cover them
// exactly once, in every share of a plan too, and a run killed with
// SIGKILL must resume on the segments it began with even after the table
// changed.
func TestE2EAdaptiveSplit(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	var parts []string
	for i := range 40 {
		parts = append(parts, fmt.Sprintf("customer-%04d", i*7))
	}
	per := 30
	if !testing.Short() {
		per = 150
	}
	name := seed(t, az, parts, per)
	total := len(parts) * per
	dir := t.TempDir()

	t.Run("segments follow the keys", func(t *testing.T) {
		file, ckpt := filepath.Join(dir, "all.jsonl"), filepath.Join(dir, "all.ckpt")
		wantCode(t, tk(t, cs, "export", name, "-o", file, "--parallel", "4", "--checkpoint", ckpt), 0, "export")
		wantOnce(t, "export", keysOf(t, file), total)
		bounds := savedBounds(t, ckpt)
		if len(bounds) < 12 {
			t.Errorf("%d segment bounds %q, want at least 12 for 40 partitions and --parallel 4", len(bounds), bounds)
		}
		for _, b := range bounds {
			if !strings.HasPrefix(b, "customer-0") {
				t.Errorf("bound %q is outside the keys' common prefix", b)
			}
		}
		if got := count(t, cs, name, "--parallel", "8"); got != total {
			t.Errorf("count = %d, want %d", got, total)
		}
		if got := count(t, cs, name, "--partition", parts[3], "--parallel", "4"); got != per {
			t.Errorf("count --partition %s = %d, want %d", parts[3], got, per)
		}
	})
	t.Run("shares", func(t *testing.T) {
		for _, n := range []int{2, 5} {
			plan := planFile(t, cs, name, n)
			union := map[string]int{}
			for i := 1; i <= n; i++ {
				file := filepath.Join(t.TempDir(), "share.jsonl")
				wantCode(t, tk(t, cs, "export", name, "-o", file, "--parallel", "3", "--plan", plan, "--segment", fmt.Sprintf("%d/%d", i, n)), 0, "export share")
				for k, c := range keysOf(t, file) {
					union[k] += c
				}
			}
			wantOnce(t, fmt.Sprintf("%d shares", n), union, total)
		}
	})
	t.Run("kill and resume", func(t *testing.T) {
		file, ckpt := filepath.Join(dir, "killed.jsonl"), filepath.Join(dir, "killed.ckpt")
		args := []string{"export", name, "-o", file, "--checkpoint", ckpt, "--checkpoint-every", "1ms", "--parallel", "2"}
		killWhenCheckpointed(t, cs, ckpt, args...)
		// New partitions between and after the old ones: probing again
		// would split differently, and the saved position would not fit.
		svc, err := table.NewService(cs, nil)
		if err != nil {
			t.Fatal(err)
		}
		tbl, err := table.New[seedEntity](svc, name)
		if err != nil {
			t.Fatal(err)
		}
		var ops []batch.Op[seedEntity]
		for i := range 20 {
			ops = append(ops, batch.Op[seedEntity]{Entity: seedEntity{fmt.Sprintf("customer-%04d", 1000+i*3), "0000", 0}})
		}
		if _, err := batch.Write(context.Background(), tbl, ops, nil); err != nil {
			t.Fatal(err)
		}
		wantCode(t, tk(t, cs, args...), 0, "resumed export")
		keys := keysOf(t, file)
		for k, n := range keys {
			if n != 1 {
				t.Errorf("%s %d times, want once", k, n)
			}
		}
		for _, pk := range parts {
			for i := range per {
				if k := fmt.Sprintf("%s/%04d", pk, i); keys[k] != 1 {
					t.Errorf("%s: %d times, want once", k, keys[k])
				}
			}
		}
	})
}
