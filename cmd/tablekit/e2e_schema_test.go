package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tablekit/tablekit/batch"
	"github.com/tablekit/tablekit/devtools/azurite"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

// proxied starts the fault proxy in front of the test's Azurite: the
// connection string through it, and the proxy, whose counts say which
// requests a command sent.
func proxied(t *testing.T, az *testenv.Env) (string, *faults.Proxy) {
	t.Helper()
	px, err := faults.Start(strings.TrimSuffix(az.Endpoint, "/"+az.Account))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { px.Close() })
	return azurite.ConnectionString(px.Endpoint(az.Account)), px
}

// seedOrders creates a table of orders: Total (Edm.Double) and Quantity
// (Edm.Int64) in every entity, n per partition of parts.
func seedOrders(t *testing.T, cs string, parts []string, n int) string {
	t.Helper()
	tbl, name := newDynTable(t, cs)
	var ents []table.Entity
	for _, pk := range parts {
		for i := range n {
			e := table.NewEntity(pk, fmt.Sprintf("%04d", i))
			e.Properties["Total"] = float64(i) + 0.5
			e.Properties["Quantity"] = int64(i)
			ents = append(ents, e)
		}
	}
	if _, err := batch.Write(context.Background(), tbl, upserts(ents), nil); err != nil {
		t.Fatal(err)
	}
	return name
}

// TestE2EFilterNames runs every command that takes --filter with a name
// no entity has, and with a literal of another type than its property's:
// each refuses with exit status 2 and a suggestion after one read (the
// sample), before it writes, deletes or creates anything or prints a
// result. --check-filter=false runs them.
func TestE2EFilterNames(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	name := seedOrders(t, cs, []string{"cust-0001", "cust-0002"}, 20)
	pcs, px := proxied(t, az)
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	target := testenv.TableName(t)
	commands := []struct {
		name string
		args []string
	}{
		{"count", []string{"count", name}},
		{"export", []string{"export", name, "-o", out}},
		{"query", []string{"query", name}},
		{"delete", []string{"delete", name, "--yes"}},
		{"copy", []string{"copy", name, target}},
		{"verify", []string{"verify", name, target}},
	}
	filters := []struct {
		filter string
		saying []string
	}{
		{"Totl gt 5.0", []string{"Totl: no entity has it (of the 40 read); did you mean Total?", "--check-filter=false"}},
		{"PartitionKey eq 'cust-0001' and Quantity eq 3", []string{"Quantity is Edm.Int64 in the entities read, and 3 is an Edm.Int32 literal (write 3L)", "documentation"}},
	}
	sample := "GET /" + az.Account + "/" + name + "()"
	for _, c := range commands {
		for _, f := range filters {
			t.Run(c.name+" "+f.filter, func(t *testing.T) {
				px.Reset()
				r := tk(t, pcs, append(c.args, "--filter", f.filter)...)
				wantCode(t, r, exitUsage, c.name)
				for _, s := range f.saying {
					if !strings.Contains(r.stderr, s) {
						t.Errorf("stderr does not say %q:\n%s", s, r.stderr)
					}
				}
				if r.stdout != "" {
					t.Errorf("stdout %q, want nothing", r.stdout)
				}
				if got, want := px.Counts(), map[string]int{sample: 1}; !maps.Equal(got, want) {
					t.Errorf("requests %v, want only the sample's %v", got, want)
				}
			})
		}
	}
	if got := count(t, cs, name); got != 40 {
		t.Errorf("after the refused deletes: %d entities, want 40", got)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("a refused export wrote %s", out)
	}
	if r := tk(t, cs, "tables", "--prefix", target); strings.TrimSpace(r.stdout) != "" {
		t.Errorf("a refused copy created its target")
	}
	if got := count(t, cs, name, "--filter", "Totl gt 5.0", "--check-filter=false"); got != 0 {
		t.Errorf("count with --check-filter=false: %d, want 0 (no entity has Totl)", got)
	}
	if got := count(t, cs, name, "--filter", "PartitionKey eq 'cust-0001' and Quantity eq 3L"); got != 1 {
		t.Errorf("count with the right literal: %d, want 1", got)
	}
	r := tk(t, cs, "query", name, "--filter", "Totl gt 5.0", "--check-filter=false")
	wantCode(t, r, exitOK, "query --check-filter=false")
}

// TestE2EFilterRareName: a property that only entities beyond the sample
// have is refused, and --check-filter=false finds them, as does a filter
// whose key comparisons lead the sample to them.
func TestE2EFilterRareName(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	tbl, name := newDynTable(t, cs)
	var ents []table.Entity
	for i := range filterSample + 10 {
		e := table.NewEntity("p", fmt.Sprintf("%05d", i))
		if i >= filterSample {
			e.Properties["Rare"] = true
		}
		ents = append(ents, e)
	}
	if _, err := batch.Write(context.Background(), tbl, upserts(ents), nil); err != nil {
		t.Fatal(err)
	}
	r := tk(t, cs, "count", name, "--filter", "Rare eq true")
	wantCode(t, r, exitUsage, "count a rare property")
	if want := fmt.Sprintf("Rare: no entity has it (of the %d read)", filterSample); !strings.Contains(r.stderr, want) {
		t.Errorf("stderr %q, want it to say %q", r.stderr, want)
	}
	if got := count(t, cs, name, "--filter", "Rare eq true", "--check-filter=false"); got != 10 {
		t.Errorf("count --check-filter=false: %d, want 10", got)
	}
	// A filter that asks for the keys where Rare is has its sample read there.
	narrowed := fmt.Sprintf("PartitionKey eq 'p' and RowKey ge '%05d' and Rare eq true", filterSample)
	if got := count(t, cs, name, "--filter", narrowed); got != 10 {
		t.Errorf("count --filter %q: %d, want 10", narrowed, got)
	}
}

// TestE2ESchema reads a table of known shape whole, in parallel segments,
// and as a sample: every count is the table's.
func TestE2ESchema(t *testing.T) {
	az := testenv.Azurite(t)
	cs := az.ConnectionString
	tbl, name := newDynTable(t, cs)
	var ents []table.Entity
	want := map[string]int64{}
	for p := range 30 {
		pk := fmt.Sprintf("cust-%04d", p)
		n := 1 + p%7
		if p == 17 {
			n = 12
		}
		want[pk] = int64(n)
		for i := range n {
			e := table.NewEntity(pk, fmt.Sprintf("%08d-0000", p*100+i))
			e.Properties["Name"] = "n"
			if i == 0 {
				e.Properties["Total"] = int32(i)
			} else {
				e.Properties["Total"] = float64(i)
			}
			ents = append(ents, e)
		}
	}
	ents[5].Properties["Note"] = strings.Repeat("x", 4000) // the largest
	if _, err := batch.Write(context.Background(), tbl, upserts(ents), nil); err != nil {
		t.Fatal(err)
	}
	total := int64(len(ents))
	sizes := readSizes(t, cs, name)

	got := schemaOf(t, tk(t, cs, "schema", name, "--format", "json", "--parallel", "4"))
	t.Run("entities and properties", func(t *testing.T) {
		if got.Entities != total || got.Sample {
			t.Errorf("entities %d (sample %v), want %d of the whole table", got.Entities, got.Sample, total)
		}
		wantProps := []propReport{
			{"Name", map[string]int64{"Edm.String": total}, total, 0},
			{"Note", map[string]int64{"Edm.String": 1}, 1, total - 1},
			{"Total", map[string]int64{"Edm.Int32": 30, "Edm.Double": total - 30}, total, 0},
		}
		if !slices.EqualFunc(got.Properties, wantProps, func(a, b propReport) bool { return fmt.Sprint(a) == fmt.Sprint(b) }) {
			t.Errorf("properties %+v, want %+v", got.Properties, wantProps)
		}
	})
	t.Run("sizes", func(t *testing.T) {
		if got.Size.Min != sizes[0] || got.Size.Median != sizes[(len(sizes)-1)/2] || got.Size.Max != sizes[len(sizes)-1] {
			t.Errorf("sizes min %d, median %d, max %d; want %d, %d, %d", got.Size.Min, got.Size.Median, got.Size.Max, sizes[0], sizes[(len(sizes)-1)/2], sizes[len(sizes)-1])
		}
		if want := [2]string{ents[5].PartitionKey, ents[5].RowKey}; got.Size.Largest != want {
			t.Errorf("largest %q, want %q", got.Size.Largest, want)
		}
	})
	t.Run("partitions", func(t *testing.T) {
		if got.Partitions.Count != 30 || !got.Partitions.Exact {
			t.Errorf("partitions %d (exact %v), want 30", got.Partitions.Count, got.Partitions.Exact)
		}
		if len(got.Partitions.Biggest) != topPartitions || got.Partitions.Biggest[0] != (partCount{"cust-0017", 12}) {
			t.Fatalf("biggest %v, want %d starting with cust-0017's 12", got.Partitions.Biggest, topPartitions)
		}
		for _, p := range got.Partitions.Biggest {
			if want[p.PartitionKey] != p.Entities {
				t.Errorf("partition %s: %d entities, want %d", p.PartitionKey, p.Entities, want[p.PartitionKey])
			}
		}
	})
	t.Run("keys", func(t *testing.T) {
		pk := keyReport{9, 9, []patternCount{{"[a-z]{4}-[0-9]{4}", total}}, 0}
		rk := keyReport{13, 13, []patternCount{{"[0-9]{8}-[0-9]{4}", total}}, 0}
		if fmt.Sprint(got.PartitionKey, got.RowKey) != fmt.Sprint(pk, rk) {
			t.Errorf("keys %+v %+v, want %+v %+v", got.PartitionKey, got.RowKey, pk, rk)
		}
	})
	t.Run("text", func(t *testing.T) {
		r := tk(t, cs, "schema", name)
		wantCode(t, r, exitOK, "schema")
		for _, s := range []string{
			fmt.Sprintf("%d entities read (every entity)", total),
			fmt.Sprintf("Total  Edm.Int32 30, Edm.Double %d  absent 0", total-30),
			"partitions: 30;", `"cust-0017" 12`, "[a-z]{4}-[0-9]{4}",
		} {
			if !strings.Contains(r.stdout, s) {
				t.Errorf("schema's text does not say %q:\n%s", s, r.stdout)
			}
		}
	})
	t.Run("sample", func(t *testing.T) {
		s := schemaOf(t, tk(t, cs, "schema", name, "--sample", "20", "--format", "json", "--parallel", "1"))
		if s.Entities != 20 || !s.Sample {
			t.Errorf("--sample 20: %d entities (sample %v), want 20, a sample", s.Entities, s.Sample)
		}
	})
	t.Run("partition", func(t *testing.T) {
		s := schemaOf(t, tk(t, cs, "schema", name, "--partition", "cust-0017", "--format", "json", "--parallel", "3"))
		if s.Entities != 12 || s.Partitions.Count != 1 || s.Partitions.Biggest[0] != (partCount{"cust-0017", 12}) {
			t.Errorf("--partition cust-0017: %d entities, %d partitions %v; want 12 in one", s.Entities, s.Partitions.Count, s.Partitions.Biggest)
		}
	})
}

// schemaOf is the report of a schema --format json run that succeeded.
func schemaOf(t *testing.T, r result) schemaReport {
	t.Helper()
	wantCode(t, r, exitOK, "schema --format json")
	var rep schemaReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("schema printed %q: %v", r.stdout, err)
	}
	return rep
}

// readSizes is the sorted sizes of a table's entities, as schema defines
// them.
func readSizes(t *testing.T, cs, name string) []int {
	t.Helper()
	svc, err := table.NewService(cs, nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := table.New[table.RawEntity](svc, name)
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	for e, err := range query.New(raw).All(context.Background()) {
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, entitySize(e))
	}
	slices.Sort(sizes)
	return sizes
}

// TestE2ESchemaUsage: a bad command line is refused before any request.
func TestE2ESchemaUsage(t *testing.T) {
	az := testenv.Azurite(t)
	pcs, px := proxied(t, az)
	tests := []struct {
		name string
		args []string
	}{
		{"format", []string{"schema", "tbl", "--format", "xml"}},
		{"sample", []string{"schema", "tbl", "--sample", "-1"}},
		{"parallel", []string{"schema", "tbl", "--parallel", "0"}},
		{"table name", []string{"schema", "no-dashes"}},
		{"two tables", []string{"schema", "tbl", "other"}},
		{"bad partition", []string{"schema", "tbl", "--partition", "a/b"}},
		{"query filter", []string{"query", "tbl", "--filter", "A eq 'unclosed"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			px.Reset()
			wantCode(t, tk(t, pcs, tt.args...), exitUsage, tt.name)
			if got := px.Counts(); len(got) != 0 {
				t.Errorf("requests %v, want none", got)
			}
		})
	}
}

// TestE2ECosmosSchema reads a table through the Cosmos DB stand-in, whose
// pages come in no key order: partitions are counted one by one, exactly,
// and the filter check works from the same sample.
func TestE2ECosmosSchema(t *testing.T) {
	c := newCosmosRun(t, nil)
	parts := partitionKeys("p%02d", 12)
	name := seed(t, c.az, parts, 15)
	got := schemaOf(t, c.tk(t, "schema", name, "--format", "json", "--parallel", "3"))
	if got.Entities != 180 || got.Partitions.Count != 12 || !got.Partitions.Exact || len(got.Partitions.Biggest) != topPartitions {
		t.Errorf("%d entities, %d partitions (exact %v), %d biggest; want 180, 12 exact, %d", got.Entities, got.Partitions.Count, got.Partitions.Exact, len(got.Partitions.Biggest), topPartitions)
	}
	for i, p := range got.Partitions.Biggest {
		if want := (partCount{parts[i], 15}); p != want {
			t.Errorf("biggest[%d] = %v, want %v (ties in key order)", i, p, want)
		}
	}
	r := c.tk(t, "count", name, "--filter", "n lt 3")
	wantCode(t, r, exitUsage, "count with a misspelled name on Cosmos DB")
	if !strings.Contains(r.stderr, "did you mean N?") {
		t.Errorf("stderr %q, want a suggestion of N", r.stderr)
	}
}

// TestAzuriteMismatchedLiterals pins what src_filtercheck.go and the docs say
// Azurite does with a literal of another type than its property's (the
// service documents no result for it): Int32 and Double compare
// numerically either way round, an Int32 literal against an Int64
// property matches for gt but nothing for eq, against a String property
// nothing for eq, and an Int64 literal against an Int32
// or Double property fails (status 500, retried: long, so not under
// -short).
func TestAzuriteMismatchedLiterals(t *testing.T) {
	az := testenv.Azurite(t)
	tbl, _ := newDynTable(t, az.ConnectionString)
	var ents []table.Entity
	for i := range 10 {
		e := table.NewEntity("p", fmt.Sprintf("%02d", i))
		e.Properties["D"] = float64(i * 100)
		e.Properties["I"] = int32(i * 100)
		e.Properties["L"] = int64(i * 100)
		e.Properties["S"] = fmt.Sprint(i * 100)
		ents = append(ents, e)
	}
	ctx := testenv.Ctx(t)
	if _, err := batch.Write(ctx, tbl, upserts(ents), nil); err != nil {
		t.Fatal(err)
	}
	matches := func(f string) (int, error) {
		ents, err := query.Collect(query.New(tbl).Where(query.Raw(f)).All(ctx))
		return len(ents), err
	}
	tests := []struct {
		filter string
		want   int
	}{
		{"D gt 500", 4}, {"D eq 500", 1}, // Int32 literal, Double property: as 500.0
		{"I gt 500.0", 4}, {"I eq 500.0", 1}, // Double literal, Int32 property: as 500
		{"L eq 500", 0}, {"L gt 500", 4}, // Int32 literal, Int64 property
		{"L eq 500L", 1},
		{"S eq 500", 0}, // Int32 literal, String property
	}
	for _, tt := range tests {
		if got, err := matches(tt.filter); got != tt.want || err != nil {
			t.Errorf("%s: %d entities, %v; want %d", tt.filter, got, err, tt.want)
		}
	}
	if testing.Short() {
		return
	}
	for _, f := range []string{"I eq 500L", "D eq 500L"} {
		if _, err := matches(f); err == nil {
			t.Errorf("%s: no error, want Azurite's 500", f)
		}
	}
}
