package query

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

const (
	bigPartitions = 24
	bigRows       = 220 // 5,280 entities
)

// TestBigTable runs paging, limits, projection, resume and parallel runs
// over one table of 5,280 entities in 24 partitions, loaded once: each
// subtest is a function below, named for what it checks.
func TestBigTable(t *testing.T) {
	if testing.Short() {
		t.Skip("long soak; runs without -short")
	}
	svc := newService(t, "", nil)
	b := &bigTable{svc: svc, tbl: testenv.NewTable[item](t, svc)}
	for p := range bigPartitions {
		for r := range bigRows {
			b.all = append(b.all, makeItem(p, r))
		}
	}
	start := time.Now()
	load(t, b.tbl, b.all)
	t.Logf("loaded %d entities in %v", len(b.all), time.Since(start))
	b.full = keysOf(b.all) // already in key order

	for _, st := range []struct {
		name string
		test func(*testing.T, *bigTable)
	}{
		{"FullScan", testBigFullScan},
		{"PageBoundaries", testBigPageBoundaries},
		{"LimitTop", testBigLimitTop},
		{"LimitPages", testBigLimitPages},
		{"ProjectionSelect", testBigProjectionSelect},
		{"ProjectionKeysOnly", testBigProjectionKeysOnly},
		{"ProjectionPoint", testBigProjectionPoint},
		{"ProjectionUnknown", testBigProjectionUnknown},
		{"ResumeMidScan", testBigResumeMidScan},
		{"ResumeWebPaging", testBigResumeWebPaging},
		{"ResumeInsideLoop", testBigResumeInsideLoop},
		{"AzuriteNeverSendsEmptyPages", testBigAzuritePages},
		{"EmptyAndPartitionOnlyPages", testBigEmptyAndPartitionOnlyPages},
		{"PointIsGet", testBigPointIsGet},
		{"GuardNoTableScan", testBigGuardNoTableScan},
		{"GuardUnmappedProperty", testBigGuardUnmappedProperty},
		{"GuardInvalidOptions", testBigGuardInvalidOptions},
		{"TokenBinding", testBigTokenBinding},
		{"Parallel", func(t *testing.T, b *bigTable) { testParallel(t, b.tbl, b.all) }},
	} {
		t.Run(st.name, func(t *testing.T) { st.test(t, b) })
	}
}

// bigTable is TestBigTable's loaded table: all its entities in key order,
// and their keys.
type bigTable struct {
	svc  *table.Service
	tbl  *table.Table[item]
	all  []item
	full []string
}

// recorded is a second handle on b's table through a new recorder.
func (b *bigTable) recorded(t *testing.T) (*table.Table[item], *testenv.Recorder) {
	t.Helper()
	rec := testenv.NewRecorder()
	rtbl, err := table.New[item](newService(t, "", &table.Options{Transport: rec}), b.tbl.Name())
	if err != nil {
		t.Fatal(err)
	}
	return rtbl, rec
}

// testBigFullScan: All returns every entity, in key order, as stored.
func testBigFullScan(t *testing.T, b *bigTable) {
	tbl, all, full, ctx := b.tbl, b.all, b.full, context.Background()
	got, err := Collect(New(tbl).All(ctx))
	if err != nil {
		t.Fatal(err)
	}
	sameSequence(t, keysOf(got), full)
	for i := range got {
		got[i].Meta = table.Meta{}
		if !equalItem(got[i], all[i]) {
			t.Fatalf("entity %d: got %+v, want %+v", i, got[i], all[i])
		}
	}
}

// testBigPageBoundaries: pages have the sizes PageSize and the filter make,
// only the last has no token, and each token resumes right after its page.
func testBigPageBoundaries(t *testing.T, b *bigTable) {
	tbl, all, ctx := b.tbl, b.all, context.Background()
	tests := []struct {
		name  string
		q     Query[item]
		match func(item) bool
		sizes []int
	}{
		{"default 1000", New(tbl), nil, []int{1000, 1000, 1000, 1000, 1000, 280}},
		{"one partition per page", New(tbl).PageSize(bigRows).Where(PartitionKey.Lt(String("p03"))),
			func(e item) bool { return e.PartitionKey < "p03" }, []int{220, 220, 220}},
		{"7 per page in a partition", New(tbl).PageSize(7).Where(Partition("p05")),
			func(e item) bool { return e.PartitionKey == "p05" }, append(repeat(7, 31), 3)},
		{"1 per page", New(tbl).PageSize(1).Where(And(Partition("p05"), RowKey.HasPrefix("r000"))),
			func(e item) bool { return e.PartitionKey == "p05" && strings.HasPrefix(e.RowKey, "r000") }, repeat(1, 10)},
		{"across partitions", New(tbl).PageSize(300).Where(PartitionKey.HasPrefix("p1")),
			func(e item) bool { return strings.HasPrefix(e.PartitionKey, "p1") }, []int{300, 300, 300, 300, 300, 300, 300, 100}},
		{"exact multiple", New(tbl).PageSize(110).Where(Partition("p00")),
			func(e item) bool { return e.PartitionKey == "p00" }, []int{110, 110}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var sizes []int
			var got []item
			var tokens []string
			for p, err := range tt.q.Pages(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				sizes = append(sizes, len(p.Entities))
				got = append(got, p.Entities...)
				tokens = append(tokens, p.Token)
			}
			if !slices.Equal(sizes, tt.sizes) {
				t.Errorf("page sizes %v, want %v", sizes, tt.sizes)
			}
			want := filterItems(all, tt.match)
			sameSequence(t, keysOf(got), keysOf(want))
			for i, tok := range tokens {
				if last := i == len(tokens)-1; (tok == "") != last {
					t.Errorf("page %d of %d: got token %q, want one on every page but the last", i, len(tokens), tok)
				}
			}
			// Page tokens resume exactly after their page (the first
			// and the last but one, to keep the test short).
			seen := 0
			for i, tok := range tokens[:len(tokens)-1] {
				seen += sizes[i]
				if i != 0 && i != len(tokens)-2 {
					continue
				}
				c, err := tt.q.Resume(tok)
				if err != nil {
					t.Fatal(err)
				}
				rest, err := Collect(c.All(ctx))
				if err != nil {
					t.Fatal(err)
				}
				sameSequence(t, keysOf(rest), keysOf(want[seen:]))
			}
		})
	}
}

// testBigLimitTop: Limit returns the first entities, and the last request
// asks ($top) only for what the limit still needs.
func testBigLimitTop(t *testing.T, b *bigTable) {
	full, ctx := b.full, context.Background()
	rtbl, rec := b.recorded(t)
	tests := []struct {
		limit, pageSize int
		tops            []string
	}{
		{1, 1000, []string{"1"}},
		{250, 100, []string{"100", "100", "50"}},
		{999, 1000, []string{"999"}},
		{1000, 1000, []string{"1000"}},
		{1001, 1000, []string{"1000", "1"}},
		{5280, 1000, []string{"1000", "1000", "1000", "1000", "1000", "280"}},
		{6000, 1000, []string{"1000", "1000", "1000", "1000", "1000", "1000"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.limit, "/", tt.pageSize), func(t *testing.T) {
			rec.Take()
			got, err := Collect(New(rtbl).PageSize(tt.pageSize).Limit(tt.limit).All(ctx))
			if err != nil {
				t.Fatal(err)
			}
			sameSequence(t, keysOf(got), full[:min(tt.limit, len(full))])
			var tops []string
			for _, r := range rec.Take() {
				tops = append(tops, r.URL.Query().Get("$top"))
			}
			if !slices.Equal(tops, tt.tops) {
				t.Errorf("$top per request %v, want %v (the last request asks only for what the limit needs)", tops, tt.tops)
			}
		})
	}
}

// testBigLimitPages: with a limit, the last page is cut by its request.
func testBigLimitPages(t *testing.T, b *bigTable) {
	tbl, ctx := b.tbl, context.Background()
	var sizes []int
	for p, err := range New(tbl).PageSize(100).Limit(230).Pages(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(p.Entities))
	}
	if want := []int{100, 100, 30}; !slices.Equal(sizes, want) {
		t.Errorf("Pages with Limit(230): got sizes %v, want %v", sizes, want)
	}
}

// testBigProjectionSelect: Select returns the keys and the named properties
// only.
func testBigProjectionSelect(t *testing.T, b *bigTable) {
	tbl, ctx := b.tbl, context.Background()
	got, err := Collect(New(tbl).Where(Partition("p03")).Select("N", "S").All(ctx))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != bigRows {
		t.Fatalf("got %d entities, want %d", len(got), bigRows)
	}
	for i, e := range got {
		want := makeItem(3, i)
		proj := item{PartitionKey: want.PartitionKey, RowKey: want.RowKey, N: want.N, S: want.S}
		e.Meta = table.Meta{}
		if !equalItem(e, proj) {
			t.Fatalf("entity %d: got %+v, want only keys, N and S: %+v", i, e, proj)
		}
	}
}

// testBigProjectionKeysOnly: Select() returns the keys only.
func testBigProjectionKeysOnly(t *testing.T, b *bigTable) {
	tbl, ctx := b.tbl, context.Background()
	keysOnly, err := Collect(New(tbl).Where(Partition("p04")).Select().Limit(3).All(ctx))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range keysOnly {
		e.Meta = table.Meta{}
		if want := (item{PartitionKey: e.PartitionKey, RowKey: e.RowKey}); !equalItem(e, want) || e.PartitionKey != "p04" {
			t.Errorf("Select(): got %+v, want keys only in p04: %+v", e, want)
		}
	}
}

// testBigProjectionPoint: a point query with Select returns the property
// selected only.
func testBigProjectionPoint(t *testing.T, b *bigTable) {
	tbl, ctx := b.tbl, context.Background()
	point, err := Collect(New(tbl).Where(Point("p05", "r0007")).Select("F").All(ctx))
	if err != nil || len(point) != 1 {
		t.Fatalf("point with Select: got %v, %v, want one entity, no error", point, err)
	}
	if p := point[0]; p.F != 7.5 || p.N != 0 || p.S != "" || p.RowKey != "r0007" {
		t.Errorf("point with Select(F): got %+v, want RowKey r0007, F 7.5 and no N or S", p)
	}
}

// testBigProjectionUnknown: Select of a property T does not have is refused.
func testBigProjectionUnknown(t *testing.T, b *bigTable) {
	_, err := Collect(New(b.tbl).Select("Nope").All(context.Background()))
	if !errors.Is(err, tablekit.ErrInvalid) {
		t.Errorf("Select(Nope): err = %v, want tablekit.ErrInvalid", err)
	}
}

// testBigResumeMidScan: a token taken after a break mid-page resumes, in
// another process, right after the last entity seen, and the end has no token.
func testBigResumeMidScan(t *testing.T, b *bigTable) {
	tbl, all, ctx := b.tbl, b.all, context.Background()
	p0 := PartitionKey.HasPrefix("p0")
	want0 := filterItems(all, func(e item) bool { return strings.HasPrefix(e.PartitionKey, "p0") })
	for _, tt := range []struct {
		q    Query[item]
		want []item
		stop int
	}{
		{New(tbl).PageSize(97).Where(p0), want0, 1},
		{New(tbl).PageSize(97).Where(p0), want0, 96},
		{New(tbl).PageSize(97).Where(p0), want0, 97},
		{New(tbl).PageSize(97).Where(p0), want0, 98},
		{New(tbl).PageSize(97).Where(p0), want0, len(want0) - 1},
		{New(tbl).PageSize(97), all, 2600},
	} {
		t.Run(fmt.Sprint(len(tt.want), "/", tt.stop), func(t *testing.T) {
			c, err := tt.q.Resume("")
			if err != nil {
				t.Fatal(err)
			}
			var first []item
			for e, err := range c.All(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				first = append(first, e)
				if len(first) == tt.stop {
					break
				}
			}
			token := c.Token()
			if token == "" {
				t.Fatal("token before the end: got empty, want one")
			}
			// Another process: a new service, table handle, query and
			// page size; only the token string is carried over.
			tbl2, err := table.New[item](newService(t, "", nil), tbl.Name())
			if err != nil {
				t.Fatal(err)
			}
			c2, err := New(tbl2).Where(tt.q.Filter()).PageSize(50).Resume(token)
			if err != nil {
				t.Fatal(err)
			}
			rest, err := Collect(c2.All(ctx))
			if err != nil {
				t.Fatal(err)
			}
			sameSequence(t, append(keysOf(first), keysOf(rest)...), keysOf(tt.want))
			if c2.Token() != "" {
				t.Errorf("token after the end = %q, want empty", c2.Token())
			}
		})
	}
}

// testBigResumeWebPaging: web-style paging, each request returning Limit
// entities and a token, walks the whole range in as many requests as needed.
func testBigResumeWebPaging(t *testing.T, b *bigTable) {
	tbl, all, ctx := b.tbl, b.all, context.Background()
	var got []string
	token, requests := "", 0
	for {
		c, err := New(tbl).Where(PartitionKey.HasPrefix("p1")).Limit(333).Resume(token)
		if err != nil {
			t.Fatal(err)
		}
		page, err := Collect(c.All(ctx))
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, keysOf(page)...)
		requests++
		if token = c.Token(); token == "" {
			break
		}
	}
	want := keysOf(filterItems(all, func(e item) bool { return strings.HasPrefix(e.PartitionKey, "p1") }))
	sameSequence(t, got, want)
	if wantReqs := (len(want) + 332) / 333; requests != wantReqs {
		t.Errorf("requests of 333 for %d entities: got %d, want %d", len(want), requests, wantReqs)
	}
}

// testBigResumeInsideLoop: Token inside the loop body resumes after the
// current entity.
func testBigResumeInsideLoop(t *testing.T, b *bigTable) {
	tbl, ctx := b.tbl, context.Background()
	c, _ := New(tbl).Where(Partition("p02")).Resume("")
	var inside string
	for e, err := range c.All(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		if e.RowKey == "r0100" {
			inside = c.Token()
		}
	}
	c2, _ := New(tbl).Where(Partition("p02")).Resume(inside)
	rest, err := Collect(c2.All(ctx))
	if err != nil || len(rest) != 119 || rest[0].RowKey != "r0101" {
		t.Errorf("resume from inside the loop: got %d entities from %v, %v; want 119 from r0101, no error", len(rest), keysOf(rest[:min(1, len(rest))]), err)
	}
}

// testBigAzuritePages: Azurite filters before it pages, so it never returns
// an empty page with a continuation and always sends both keys; the pager
// transport of testBigEmptyAndPartitionOnlyPages makes what it does not.
func testBigAzuritePages(t *testing.T, b *bigTable) {
	ctx := context.Background()
	var sizes []int
	var npkOnly int
	rtbl, rec := b.recorded(t)
	for p, err := range New(rtbl).Where(Property("N").Eq(Int32(219))).PageSize(5).Pages(ctx) {
		if err != nil {
			t.Fatal(err)
		}
		sizes = append(sizes, len(p.Entities))
	}
	for _, r := range rec.Take() {
		if r.URL.Query().Get("NextPartitionKey") != "" && r.URL.Query().Get("NextRowKey") == "" {
			npkOnly++
		}
	}
	t.Logf("Azurite, filter matching one entity per partition, 5 per page: pages %v, %d requests with NextPartitionKey only", sizes, npkOnly)
	if want := []int{5, 5, 5, 5, 4}; !slices.Equal(sizes, want) {
		t.Errorf("Azurite's pages changed: got %v, want %v", sizes, want)
	}
}

// testBigEmptyAndPartitionOnlyPages: through the service's worst case, made
// by the pager transport (empty pages, pages cut to a NextPartitionKey-only
// continuation), queries, page tokens, mid-page breaks and ordered parallel
// runs return every entity once, in order.
func testBigEmptyAndPartitionOnlyPages(t *testing.T, b *bigTable) {
	tbl, all, ctx := b.tbl, b.all, context.Background()
	pg := newPager(true, true)
	ptbl, _ := table.New[item](newService(t, "", &table.Options{Transport: pg}), tbl.Name())
	for _, tt := range []struct {
		name  string
		q     Query[item]
		match func(item) bool
	}{
		{"four partitions", New(ptbl).Where(PartitionKey.Lt(String("p04"))).PageSize(150),
			func(e item) bool { return e.PartitionKey < "p04" }},
		{"sparse filter", New(ptbl).Where(Property("N").Eq(Int32(219))).PageSize(5),
			func(e item) bool { return e.N == 219 }},
		{"ordered parallel", New(ptbl).PageSize(60), nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			want := filterItems(all, tt.match)
			if tt.match == nil {
				// Two segments of two partitions each, merged in order,
				// through the same empty and cut pages.
				want = filterItems(all, func(e item) bool { return e.PartitionKey >= "p10" && e.PartitionKey < "p14" })
				segs := RangeSegments("p10", "p12", "p14")[1:3]
				c, err := tt.q.Parallel(segs, &ParallelOptions{Ordered: true})
				if err != nil {
					t.Fatal(err)
				}
				var got []item
				for e, err := range c.All(ctx) {
					if err != nil {
						t.Fatal(err)
					}
					if got = append(got, e); len(got) == 300 {
						break
					}
				}
				c2, err := tt.q.ResumeParallel(c.Token(), segs, &ParallelOptions{Ordered: true})
				if err != nil {
					t.Fatal(err)
				}
				rest, err := Collect(c2.All(ctx))
				if err != nil {
					t.Fatal(err)
				}
				sameSequence(t, append(keysOf(got), keysOf(rest)...), keysOf(want))
				return
			}
			var got []item
			var tokens []string
			var empty int
			for p, err := range tt.q.Pages(ctx) {
				if err != nil {
					t.Fatal(err)
				}
				if len(p.Entities) == 0 {
					empty++
				}
				got = append(got, p.Entities...)
				tokens = append(tokens, p.Token)
			}
			sameSequence(t, keysOf(got), keysOf(want))
			if empty == 0 {
				t.Error("empty pages: got 0, want some")
			}
			// Resume from page tokens: the first ones (after empty pages
			// and the first cut pages) and the last ones.
			for i, p := range tokens[:len(tokens)-1] {
				if i > 3 && i < len(tokens)-3 {
					continue
				}
				c, err := tt.q.Resume(p)
				if err != nil {
					t.Fatal(err)
				}
				rest, err := Collect(c.All(ctx))
				if err != nil {
					t.Fatal(err)
				}
				seen := len(want) - len(rest)
				if seen < 0 || !slices.Equal(keysOf(rest), keysOf(want[seen:])) {
					t.Fatalf("resume after page %d: %d entities, want a suffix of %d", i, len(rest), len(want))
				}
			}
			// Mid-page breaks through the same pages.
			for _, stop := range []int{1, len(want) / 3, len(want) - 1} {
				c, _ := tt.q.Resume("")
				n := 0
				for _, err := range c.All(ctx) {
					if err != nil {
						t.Fatal(err)
					}
					if n++; n == stop {
						break
					}
				}
				c2, err := tt.q.PageSize(7).Resume(c.Token())
				if err != nil {
					t.Fatal(err)
				}
				rest, err := Collect(c2.All(ctx))
				if err != nil {
					t.Fatal(err)
				}
				sameSequence(t, keysOf(rest), keysOf(want[stop:]))
			}
		})
	}
	t.Logf("pager transport: %d empty pages, %d pages cut to a NextPartitionKey-only continuation", pg.emptyPages, pg.cutPages)
	if pg.cutPages == 0 {
		t.Error("cut pages: got 0, want some: no page was cut at a partition boundary")
	}
}

// testBigPointIsGet: a filter of exactly one key is a GET by key; with more
// in it, a query; with a key no entity can have, no request.
func testBigPointIsGet(t *testing.T, b *bigTable) {
	ctx := context.Background()
	rtbl, rec := b.recorded(t)
	tests := []struct {
		name string
		f    Filter
		want []string
		get  bool
	}{
		{"point", Point("p01", "r0002"), []string{"p01/r0002"}, true},
		{"point missing", Point("p01", "nope"), nil, true},
		{"point bad key", Point("p01", "a/b"), nil, false},
		{"point and more", And(Point("p01", "r0002"), Property("N").Eq(Int32(2))), []string{"p01/r0002"}, false},
		{"point and no match", And(Point("p01", "r0002"), Property("N").Eq(Int32(3))), nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := New(rtbl).Where(tt.f)
			if q.Scope() != ScopePoint {
				t.Errorf("scope %v, want point", q.Scope())
			}
			rec.Take()
			got, err := Collect(q.All(ctx))
			if err != nil {
				t.Fatal(err)
			}
			sameSequence(t, keysOf(got), tt.want)
			reqs := rec.Take()
			isGet := len(reqs) == 1 && strings.Contains(reqs[0].URL.Path, "(PartitionKey=")
			isQuery := len(reqs) == 1 && strings.HasSuffix(reqs[0].URL.Path, "()")
			switch {
			case tt.get && !isGet:
				t.Errorf("requests %+v, want one GET by key", reqs)
			case !tt.get && tt.name != "point bad key" && !isQuery:
				t.Errorf("requests %+v, want one query", reqs)
			case tt.name == "point bad key" && len(reqs) != 0:
				t.Errorf("requests %+v, want none (no entity can have the key)", reqs)
			}
		})
	}
}

// testBigGuardNoTableScan: NoTableScan refuses a scan and lets a partition
// query through.
func testBigGuardNoTableScan(t *testing.T, b *bigTable) {
	tbl, ctx := b.tbl, context.Background()
	_, err := Collect(New(tbl).NoTableScan().Where(Property("N").Eq(Int32(1))).All(ctx))
	if !errors.Is(err, tablekit.ErrInvalid) {
		t.Errorf("NoTableScan on a scan: err = %v, want tablekit.ErrInvalid", err)
	}
	if _, err := Collect(New(tbl).NoTableScan().Where(Partition("p00")).Limit(1).All(ctx)); err != nil {
		t.Errorf("NoTableScan on a partition: err = %v, want nil", err)
	}
}

// testBigGuardUnmappedProperty: a filter on a property T does not map is
// refused, naming it; on known properties and Timestamp it runs.
func testBigGuardUnmappedProperty(t *testing.T, b *bigTable) {
	tbl, ctx := b.tbl, context.Background()
	_, err := Collect(New(tbl).Where(Property("Nope").Eq(Int32(1))).All(ctx))
	if !errors.Is(err, tablekit.ErrInvalid) || !strings.Contains(err.Error(), "Nope") {
		t.Errorf("a property T does not map: err = %v, want tablekit.ErrInvalid naming Nope", err)
	}
	if _, err := Collect(New(tbl).Where(And(Property("N").Eq(Int32(1)), Timestamp.Gt(DateTime(baseTime)))).Limit(1).All(ctx)); err != nil {
		t.Errorf("known properties: err = %v, want nil", err)
	}
}

// testBigGuardInvalidOptions: page sizes out of range, a negative limit, a
// nil table and an invalid property name are refused before any request.
func testBigGuardInvalidOptions(t *testing.T, b *bigTable) {
	tbl, ctx := b.tbl, context.Background()
	for name, q := range map[string]Query[item]{
		"page size 0":    New(tbl).PageSize(0),
		"page size 1001": New(tbl).PageSize(1001),
		"negative limit": New(tbl).Limit(-1),
		"nil table":      New[item](nil),
	} {
		if _, err := Collect(q.All(ctx)); !errors.Is(err, tablekit.ErrInvalid) {
			t.Errorf("%s: err = %v, want tablekit.ErrInvalid", name, err)
		}
	}
	if _, err := Collect(New(tbl).Where(Property("1x").Eq(Int32(1))).All(ctx)); !errors.Is(err, tablekit.ErrInvalid) {
		t.Errorf("invalid filter: err = %v, want tablekit.ErrInvalid", err)
	}
}

// testBigTokenBinding: a token resumes only the query it came from (page
// size and limit aside), on its table, in its version.
func testBigTokenBinding(t *testing.T, b *bigTable) {
	tbl, svc, ctx := b.tbl, b.svc, context.Background()
	q := New(tbl).Where(Partition("p01")).PageSize(10)
	c, _ := q.Resume("")
	for range c.All(ctx) {
		break
	}
	tok := c.Token()
	other := testenv.NewTable[item](t, svc)
	tests := []struct {
		name string
		q    Query[item]
		tok  string
		want error
	}{
		{"same query other page size and limit", q.PageSize(3).Limit(2), tok, nil},
		{"other filter", New(tbl).Where(Partition("p02")), tok, tablekit.ErrInvalid},
		{"extra filter", q.Where(Property("N").Gt(Int32(1))), tok, tablekit.ErrInvalid},
		{"other select", q.Select("N"), tok, tablekit.ErrInvalid},
		{"other table", New(other).Where(Partition("p01")), tok, tablekit.ErrInvalid},
		{"garbage", q, "not a token!", tablekit.ErrInvalid},
		{"truncated", q, tok[:len(tok)/2], tablekit.ErrInvalid},
		{"other version", q, retoken(t, tok, `"v":1`, `"v":3`), tablekit.ErrInvalid},
		{"version 2 without its count skip", q, retoken(t, tok, `"v":1`, `"v":2`), nil},
		{"inconsistent", q, retoken(t, tok, `"ak":`, `"x":`), tablekit.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.q.Resume(tt.tok)
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Errorf("Resume: err = %v, want %v", err, tt.want)
			}
		})
	}
	if _, err := q.ResumeParallel(tok, PartitionSegments("p01"), nil); !errors.Is(err, tablekit.ErrInvalid) {
		t.Errorf("sequential token to a parallel run: err = %v, want tablekit.ErrInvalid", err)
	}
	// The deprecated option and the method cannot disagree.
	if _, err := q.ResumeParallel(tok, PartitionSegments("p01"), &ParallelOptions{Resume: tok + "x"}); !errors.Is(err, tablekit.ErrInvalid) {
		t.Errorf("two different tokens: err = %v, want tablekit.ErrInvalid", err)
	}
}

// filterItems returns the items that match (all of them for a nil match).
func filterItems(items []item, match func(item) bool) []item {
	var out []item
	for _, e := range items {
		if match == nil || match(e) {
			out = append(out, e)
		}
	}
	return out
}

func repeat(v, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// retoken edits a token's JSON, as a tampering client would.
func retoken(t *testing.T, tok, old, new string) string {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(tok)
	if err != nil || !strings.Contains(string(raw), old) {
		t.Fatalf("token %s has no %s", raw, old)
	}
	return base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(raw), old, new, 1)))
}

func equalItem(a, b item) bool {
	return a.PartitionKey == b.PartitionKey && a.RowKey == b.RowKey && a.N == b.N && a.Big == b.Big &&
		a.F == b.F && a.S == b.S && a.B == b.B && a.When.Equal(b.When) && a.ID == b.ID &&
		string(a.Bin) == string(b.Bin) && a.Meta == b.Meta
}
