package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/tablekit/tablekit/devtools/azurite"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

// addInput writes 300 JSON lines, 100 in each of 3 partitions (so each
// partition is one full transaction), and returns the file and the line
// of each key.
func addInput(t *testing.T) (string, map[string]int64) {
	t.Helper()
	var b strings.Builder
	lines := map[string]int64{}
	n := int64(0)
	for _, pk := range []string{"a", "b", "c"} {
		for i := range 100 {
			n++
			rk := fmt.Sprintf("%03d", i)
			fmt.Fprintf(&b, `{"PartitionKey":%q,"RowKey":%q,"N":%d}`+"\n", pk, rk, i)
			lines[pk+"/"+rk] = n
		}
	}
	file := filepath.Join(t.TempDir(), "in.jsonl")
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return file, lines
}

// preStored are the entities a target holds before the import: some the
// input also holds with other properties, one with the same.
var preStored = map[string]int32{"a/000": -1, "a/057": -1, "a/099": -1, "b/042": 42, "c/013": -1, "c/014": -1}

// preStore stores preStored in a new table and returns it.
func preStore(t *testing.T, conn string) (*dynTable, string) {
	t.Helper()
	tbl, name := newDynTable(t, conn)
	for k, n := range preStored {
		pk, rk, _ := strings.Cut(k, "/")
		e := table.NewEntity(pk, rk)
		e.Properties["N"] = n
		if _, err := tbl.Add(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	return tbl, name
}

// checkAdded checks a target after an add-mode import of addInput: what
// was stored before is unchanged, every other line is stored.
func checkAdded(t *testing.T, got map[string]table.Entity) {
	t.Helper()
	if len(got) != 300 {
		t.Errorf("%d entities, want 300", len(got))
	}
	for k, e := range got {
		var want int32
		fmt.Sscanf(e.RowKey, "%d", &want)
		if n, ok := preStored[k]; ok {
			want = n
		}
		if e.Properties["N"] != want {
			t.Errorf("%s: N = %#v, want %d", k, e.Properties["N"], want)
		}
	}
}

// rejectedLines reads a --rejects file: the lines and their reasons.
func rejectedLines(t *testing.T, file string) map[int64]string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	got := map[int64]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if l == "" {
			continue
		}
		var rj reject
		if err := json.Unmarshal([]byte(l), &rj); err != nil {
			t.Fatalf("rejects line %q: %v", l, err)
		}
		if _, dup := got[rj.Line]; dup {
			t.Errorf("line %d rejected twice", rj.Line)
		}
		got[rj.Line] = rj.Reason
	}
	return got
}

// timestamps are the Timestamps of a table's entities: an entity written
// again gets a new one.
func timestamps(got map[string]table.Entity) map[string]string {
	ts := map[string]string{}
	for k, e := range got {
		ts[k] = e.Timestamp.String()
	}
	return ts
}

// TestE2EImportAddExisting imports with --mode add into a table that
// already holds some of the entities: each is a reject with its own line,
// every other entity of its transaction is written, the exit status is 1,
// and running the same command again does nothing more. --mode add-missing
// leaves them and says how many; lost replies change none of this.
func TestE2EImportAddExisting(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	in, lineOf := addInput(t)
	wantRejects := map[int64]string{}
	for k := range preStored {
		wantRejects[lineOf[k]] = reasonExists
	}

	t.Run("add", func(t *testing.T) {
		dst, dname := preStore(t, cs)
		dir := t.TempDir()
		rej, ckpt := filepath.Join(dir, "rej.jsonl"), filepath.Join(dir, "imp.ckpt")
		args := []string{"import", dname, in, "--mode", "add", "--rejects", rej, "--checkpoint", ckpt}
		r := tk(t, cs, args...)
		wantCode(t, r, exitFailed, "import --mode add")
		if got := rejectedLines(t, rej); !reflect.DeepEqual(got, wantRejects) {
			t.Errorf("rejects %v, want %v", got, wantRejects)
		}
		for line := range wantRejects {
			if !strings.Contains(r.stderr, fmt.Sprintf("line %d: %s", line, reasonExists)) {
				t.Errorf("stderr does not report line %d:\n%s", line, r.stderr)
			}
		}
		after := readTable(t, dst)
		checkAdded(t, after)
		rejBytes, _ := os.ReadFile(rej)

		r = tk(t, cs, args...)
		wantCode(t, r, exitComplete, "the same import again")
		if !strings.Contains(r.stderr, "already complete") || !strings.Contains(r.stderr, fmt.Sprintf("%d rejects", len(wantRejects))) {
			t.Errorf("the second run did not find the import complete:\n%s", r.stderr)
		}
		again := readTable(t, dst)
		if got, want := timestamps(again), timestamps(after); !reflect.DeepEqual(got, want) {
			t.Errorf("the second run wrote entities again")
		}
		if b, _ := os.ReadFile(rej); string(b) != string(rejBytes) {
			t.Errorf("the second run changed the rejects:\n%s\nwas\n%s", b, rejBytes)
		}
	})

	t.Run("add-missing", func(t *testing.T) {
		dst, dname := preStore(t, cs)
		rej := filepath.Join(t.TempDir(), "rej.jsonl")
		r := tk(t, cs, "import", dname, in, "--mode", "add-missing", "--rejects", rej)
		wantCode(t, r, exitOK, "import --mode add-missing")
		if want := fmt.Sprintf("%d entities were already there", len(preStored)); !strings.Contains(r.stderr, want) {
			t.Errorf("stderr does not say %q:\n%s", want, r.stderr)
		}
		if got := rejectedLines(t, rej); len(got) != 0 {
			t.Errorf("rejects %v, want none", got)
		}
		checkAdded(t, readTable(t, dst))
	})

	t.Run("add with lost replies", func(t *testing.T) {
		px, err := faults.Start(strings.TrimSuffix(az.Endpoint, "/"+az.Account))
		if err != nil {
			t.Fatal(err)
		}
		defer px.Close()
		// Every transaction commits (or is refused) and its reply is lost,
		// once: the retry finds entities there, its own or not.
		px.SetRules(faults.Rule{Match: faults.And(faults.Method(http.MethodPost), faults.PathContains("$batch")), Times: 3, Fault: faults.DropAfterForward()})
		dst, dname := preStore(t, cs)
		rej := filepath.Join(t.TempDir(), "rej.jsonl")
		r := tk(t, azurite.ConnectionString(px.Endpoint(az.Account)), "import", dname, in, "--mode", "add", "--rejects", rej)
		wantCode(t, r, exitFailed, "import --mode add through lost replies")
		if px.Injected() != 3 {
			t.Errorf("%d replies lost, want 3", px.Injected())
		}
		if got := rejectedLines(t, rej); !reflect.DeepEqual(got, wantRejects) {
			t.Errorf("rejects %v, want %v", got, wantRejects)
		}
		checkAdded(t, readTable(t, dst))
	})
}
