package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/tablekit/tablekit/devtools/testenv"
)

// TestE2EDryRun runs import, copy and delete with --dry-run through the
// fault proxy: each exits 0, prints the transactions the run would send,
// and sends only reads (the proxy counts every request), so no table is
// created or changed.
func TestE2EDryRun(t *testing.T) {
	az := testenv.Azurite(t)
	src := seed(t, az, partitionKeys("p%02d", 3), 250)
	cs, px := proxied(t, az)
	absent := testenv.TableName(t)

	in := filepath.Join(t.TempDir(), "in.jsonl")
	var b strings.Builder
	for i := range 450 {
		fmt.Fprintf(&b, "{\"PartitionKey\":\"q%d\",\"RowKey\":\"%04d\",\"N\":%d}\n", i%3, i, i)
	}
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name     string
		args     []string
		wantTx   int // 100, 100, 50 per partition of 250; 100, 50 of 150
		wantEnts int
	}{
		{"import", []string{"import", absent, in, "--create"}, 6, 450},
		{"copy", []string{"copy", src, absent, "--parallel", "1"}, 9, 750},
		{"delete", []string{"delete", src, "--partition", "p01"}, 3, 250},
		{"delete with --yes", []string{"delete", src, "--prefix", "p0", "--yes"}, 9, 750},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			px.Reset()
			r := tk(t, cs, append(tt.args, "--dry-run", "--price", "4")...)
			wantCode(t, r, exitOK, strings.Join(tt.args, " ")+" --dry-run")
			got := dryRunRows(t, r.stdout)
			if got["transactions"] != tt.wantTx || got["entities"] != tt.wantEnts {
				t.Errorf("got %d transactions of %d entities, want %d of %d\n%s", got["transactions"], got["entities"], tt.wantTx, tt.wantEnts, r.stdout)
			}
			reads := px.Count("GET ")
			if writes := countAll(px.Counts()) - reads; writes != 0 {
				t.Errorf("requests other than reads: got %d, want 0 (%v)", writes, px.Counts())
			}
			if got["query pages"] != reads {
				t.Errorf("query pages: got %d, want the %d reads the proxy saw", got["query pages"], reads)
			}
			if want := costText(float64(got["total"]) * 4 / 10000); !strings.Contains(r.stdout, want) {
				t.Errorf("cost of %d requests at 4 per 10,000: want %s in\n%s", got["total"], want, r.stdout)
			}
		})
	}
	if got, want := count(t, az.ConnectionString, src), 750; got != want {
		t.Errorf("source after the dry runs: got %d entities, want %d", got, want)
	}
	r := tk(t, az.ConnectionString, "count", absent)
	if r.code == exitOK {
		t.Errorf("the dry runs' target %s exists: got exit 0 from count, want an error", absent)
	}
}

// TestE2EDryRunUsage: what a dry run cannot do is exit status 2, before
// any request.
func TestE2EDryRunUsage(t *testing.T) {
	az := testenv.Azurite(t)
	cs, px := proxied(t, az)
	for _, args := range [][]string{
		{"copy", "a", "b", "--price", "4"},
		{"copy", "a", "b", "--dry-run", "--price", "-1"},
		{"copy", "a", "b", "--dry-run", "--price", "NaN"},
		{"copy", "a", "b", "--dry-run", "--checkpoint", "c.ckpt"},
		{"delete", "t", "--partition", "p", "--dry-run", "--checkpoint", "c.ckpt"},
		{"delete", "t", "--partition", "p"},
		{"import", "t", "in.jsonl", "--dry-run", "--rejects", "bad.jsonl"},
		{"restore", "dir", "t", "--dry-run", "--checkpoint", "c.ckpt"},
		{"restore", "dir", "t", "--price", "4"},
		{"backup", "t", "dir", "--price", "4"},
		{"backup", "t", "dir", "--dry-run", "--segment", "1/2"},
	} {
		px.Reset()
		wantCode(t, tk(t, cs, args...), exitUsage, strings.Join(args, " "))
		if n := countAll(px.Counts()); n != 0 {
			t.Errorf("%s: got %d requests, want 0", strings.Join(args, " "), n)
		}
	}
}

// dryRunRows reads a dry run's table: the count of each kind of request,
// and the entities of its transactions as "entities".
func dryRunRows(t *testing.T, out string) map[string]int {
	t.Helper()
	rows := map[string]int{}
	for _, line := range strings.Split(out, "\n") {
		for _, kind := range []string{"query pages", "transactions", "single writes", "total"} {
			rest, ok := strings.CutPrefix(line, kind)
			if !ok {
				continue
			}
			if kind == "transactions" {
				var ents int
				if _, err := fmt.Sscanf(rest, " (%d entities)", &ents); err != nil {
					t.Fatalf("transactions row %q: %v", line, err)
				}
				rows["entities"] = ents
				rest = rest[strings.Index(rest, ")")+1:]
			}
			n, err := strconv.Atoi(strings.Fields(rest)[0])
			if err != nil {
				t.Fatalf("row %q: %v", line, err)
			}
			rows[kind] = n
		}
	}
	if len(rows) != 5 {
		t.Fatalf("dry run printed %q: want a row of each kind", out)
	}
	return rows
}

func countAll(counts map[string]int) int {
	n := 0
	for _, c := range counts {
		n += c
	}
	return n
}

// TestE2EDryRunBackup runs restore and backup with --dry-run through the
// fault proxy: restore counts its transactions from the backup and reads
// the table only as its mode needs; backup counts the pages it reads. Only
// reads reach the proxy, and nothing is created.
func TestE2EDryRunBackup(t *testing.T) {
	az := testenv.Azurite(t)
	src := seed(t, az, partitionKeys("p%02d", 3), 250)
	dir := filepath.Join(t.TempDir(), "backups")
	wantCode(t, tk(t, az.ConnectionString, "backup", src, dir), exitOK, "backup")
	cs, px := proxied(t, az)
	absent := testenv.TableName(t)
	unused := filepath.Join(t.TempDir(), "unused")

	tests := []struct {
		name                      string
		args                      []string
		wantTx, wantEnts, singles int
	}{
		{"restore into a new table", []string{"restore", dir, absent}, 9, 750, 1},
		{"restore replace", []string{"restore", dir, src, "--mode", "replace"}, 9, 750, 0},
		{"restore add-missing", []string{"restore", dir, src, "--mode", "add-missing"}, 0, 0, 0},
		{"backup", []string{"backup", src, unused}, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			px.Reset()
			r := tk(t, cs, append(tt.args, "--dry-run", "--price", "4")...)
			wantCode(t, r, exitOK, strings.Join(tt.args, " ")+" --dry-run")
			got := dryRunRows(t, r.stdout)
			if got["transactions"] != tt.wantTx || got["entities"] != tt.wantEnts || got["single writes"] != tt.singles {
				t.Errorf("got %d transactions of %d entities and %d single writes, want %d of %d and %d\n%s",
					got["transactions"], got["entities"], got["single writes"], tt.wantTx, tt.wantEnts, tt.singles, r.stdout)
			}
			reads := px.Count("GET ")
			if reads == 0 {
				t.Errorf("reads: got 0, want the table read")
			}
			if writes := countAll(px.Counts()) - reads; writes != 0 {
				t.Errorf("requests other than reads: got %d, want 0 (%v)", writes, px.Counts())
			}
			if got["query pages"] != reads {
				t.Errorf("query pages: got %d, want the %d reads the proxy saw", got["query pages"], reads)
			}
			if want := costText(float64(got["total"]) * 4 / 10000); !strings.Contains(r.stdout, want) {
				t.Errorf("cost of %d requests at 4 per 10,000: want %s in\n%s", got["total"], want, r.stdout)
			}
		})
	}
	if _, err := os.Stat(unused); !os.IsNotExist(err) {
		t.Errorf("backup --dry-run's destination: got %v, want it not created", err)
	}
	if r := tk(t, az.ConnectionString, "count", absent); r.code == exitOK {
		t.Errorf("the dry run's target %s exists: got exit 0 from count, want an error", absent)
	}
	if got, want := count(t, az.ConnectionString, src), 750; got != want {
		t.Errorf("source after the dry runs: got %d entities, want %d", got, want)
	}
}
