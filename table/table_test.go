package table_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

type level int

func (l level) MarshalText() ([]byte, error) { return []byte([]string{"none", "low", "high"}[l]), nil }
func (l *level) UnmarshalText(b []byte) error {
	for i, s := range []string{"none", "low", "high"} {
		if s == string(b) {
			*l = level(i)
			return nil
		}
	}
	return errors.New("bad level")
}

type Address struct {
	City string `json:"city"`
	Zip  string `json:"zip"`
}

type Everything struct {
	PartitionKey string
	RowKey       string
	Name         string
	Flag         bool
	Small        int32
	Int          int
	Big          int64
	Unsigned     uint64
	Ratio        float64
	Whole        float64
	When         time.Time
	ID           table.GUID
	Blob         []byte
	Nick         *string
	Maybe        *int64
	Level        level
	Home         Address  `table:",json"`
	Tags         []string `table:",json"`
	Empty        string
	table.Meta
}

func sample() Everything {
	nick := "Bobby 'Tables'"
	maybe := int64(-1)
	id, _ := table.ParseGUID("0f8fad5b-d9cb-469f-a165-70867728950e")
	return Everything{
		PartitionKey: "O'Brien", RowKey: "ünï-😀 \"q\"",
		Name: "line\nbreak, quote ' and \" and emoji 😀", Flag: true,
		Small: math.MinInt32, Int: math.MaxInt32, Big: math.MaxInt64, Unsigned: math.MaxInt64,
		Ratio: 0.1, Whole: 1.0,
		When: time.Date(2024, 2, 29, 13, 14, 15, 123456700, time.FixedZone("CET", 3600)),
		ID:   id, Blob: []byte{0, 1, 2, 0xff}, Nick: &nick, Maybe: &maybe, Level: 2,
		Home: Address{City: "Zürich", Zip: "8001"}, Tags: []string{"a", "b"},
	}
}

func TestRoundTripEveryType(t *testing.T) {
	tbl, _ := newRecordedTable[Everything](t, nil)
	ctx := testenv.Ctx(t)
	in := sample()
	res, err := tbl.Add(ctx, in)
	if err != nil {
		t.Fatalf("Add: %v", err)
	}
	if res.ETag == "" || res.Timestamp.IsZero() {
		t.Errorf("Add result = %+v, want ETag and Timestamp", res)
	}
	got, err := tbl.Get(ctx, in.PartitionKey, in.RowKey, nil)
	if err != nil {
		t.Fatalf("Get: %v", err)
	}
	if got.ETag != res.ETag {
		t.Errorf("ETag = %q, want %q", got.ETag, res.ETag)
	}
	if !got.Timestamp.Equal(res.Timestamp) {
		t.Errorf("Timestamp = %v, want %v", got.Timestamp, res.Timestamp)
	}
	want := in
	want.When = in.When.UTC()
	want.Meta = got.Meta
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip:\n got %+v\nwant %+v", got, want)
	}

	// The same entity through plain aztables, with full metadata so that the
	// service states every property's EDM type: the wire types are exact.
	// The raw body is read too: aztables re-encodes it through a map, which
	// turns the double 1.0 into 1.
	full := aztables.MetadataFormatFull
	var httpResp *http.Response
	raw, err := tbl.Client().GetEntity(policy.WithCaptureResponse(ctx, &httpResp), in.PartitionKey, in.RowKey, &aztables.GetEntityOptions{Format: &full})
	if err != nil {
		t.Fatal(err)
	}
	body, err := runtime.Payload(httpResp)
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		t.Fatal(err)
	}
	// A JSON number with a decimal point is an Edm.Double; without, Int32.
	for prop, want := range map[string]string{"Whole": "1.0", "Ratio": "0.1", "Small": "-2147483648", "Int": "2147483647"} {
		if got := m[prop]; got != json.Number(want) {
			t.Errorf("%s on the wire = %v, want %s", prop, got, want)
		}
	}
	if m["PartitionKey"] != "O'Brien" {
		t.Errorf("PartitionKey on the service = %q, want a single quote kept single", m["PartitionKey"])
	}
	for prop, typ := range map[string]string{"Big": "Edm.Int64", "Unsigned": "Edm.Int64", "When": "Edm.DateTime", "ID": "Edm.Guid", "Blob": "Edm.Binary", "Maybe": "Edm.Int64"} {
		if got := m[prop+"@odata.type"]; got != typ {
			t.Errorf("%s@odata.type = %v, want %s", prop, got, typ)
		}
	}
	for _, prop := range []string{"Name", "Flag", "Small", "Int", "Level", "Home", "Tags"} {
		if got, ok := m[prop+"@odata.type"]; ok {
			t.Errorf("%s@odata.type = %v, want no annotation (String/Boolean/Int32)", prop, got)
		}
	}
	if m["When"] != "2024-02-29T12:14:15.1234567Z" {
		t.Errorf("When on the service = %v", m["When"])
	}
	if m["Big"] != "9223372036854775807" {
		t.Errorf("Big on the service = %v", m["Big"])
	}
	if m["Home"] != `{"city":"Zürich","zip":"8001"}` || m["Level"] != "high" {
		t.Errorf("Home, Level on the service = %v, %v", m["Home"], m["Level"])
	}
	// aztables' own EDM decoding agrees on every type.
	var edm aztables.EDMEntity
	if err := json.Unmarshal(raw.Value, &edm); err != nil {
		t.Fatal(err)
	}
	if v, ok := edm.Properties["Big"].(aztables.EDMInt64); !ok || int64(v) != math.MaxInt64 {
		t.Errorf("EDMEntity Big = %#v", edm.Properties["Big"])
	}
	if _, ok := edm.Properties["ID"].(aztables.EDMGUID); !ok {
		t.Errorf("EDMEntity ID = %#v, want EDMGUID", edm.Properties["ID"])
	}
	if _, ok := edm.Properties["When"].(aztables.EDMDateTime); !ok {
		t.Errorf("EDMEntity When = %#v, want EDMDateTime", edm.Properties["When"])
	}
	if _, ok := edm.Properties["Blob"].(aztables.EDMBinary); !ok {
		t.Errorf("EDMEntity Blob = %#v, want EDMBinary", edm.Properties["Blob"])
	}
}

func TestCRUDAndConcurrency(t *testing.T) {
	type Item struct {
		PartitionKey, RowKey string
		Count                int32
		Note                 *string
		table.Meta
	}
	tbl, _ := newRecordedTable[Item](t, nil)
	ctx := testenv.Ctx(t)
	note := "first"
	first, err := tbl.Add(ctx, Item{PartitionKey: "p", RowKey: "r", Count: 1, Note: &note})
	if err != nil {
		t.Fatal(err)
	}

	_, err = tbl.Add(ctx, Item{PartitionKey: "p", RowKey: "r"})
	var re *azcore.ResponseError
	if !errors.Is(err, tablekit.ErrAlreadyExists) || !errors.As(err, &re) || re.StatusCode != 409 {
		t.Fatalf("second Add: err = %v, want tablekit.ErrAlreadyExists with a 409 ResponseError", err)
	}

	// Merge keeps Note; the ETag moves on.
	merged, err := tbl.Update(ctx, Item{PartitionKey: "p", RowKey: "r", Count: 2}, table.Merge, first.ETag)
	if err != nil {
		t.Fatalf("Update merge: %v", err)
	}
	got, err := tbl.Get(ctx, "p", "r", nil)
	if err != nil || got.Count != 2 || got.Note == nil || *got.Note != "first" {
		t.Fatalf("after merge: %+v, %v", got, err)
	}

	// The stale ETag loses.
	_, err = tbl.Update(ctx, Item{PartitionKey: "p", RowKey: "r", Count: 3}, table.Replace, first.ETag)
	if !errors.Is(err, tablekit.ErrPreconditionFailed) {
		t.Fatalf("stale Update: err = %v, want tablekit.ErrPreconditionFailed", err)
	}
	if err := tbl.Delete(ctx, "p", "r", first.ETag); !errors.Is(err, tablekit.ErrPreconditionFailed) {
		t.Fatalf("stale Delete: err = %v, want tablekit.ErrPreconditionFailed", err)
	}

	// Replace drops Note.
	if _, err := tbl.Update(ctx, Item{PartitionKey: "p", RowKey: "r", Count: 4}, table.Replace, merged.ETag); err != nil {
		t.Fatal(err)
	}
	got, _ = tbl.Get(ctx, "p", "r", nil)
	if got.Count != 4 || got.Note != nil {
		t.Fatalf("after replace: %+v", got)
	}

	// Upsert creates and merges without an ETag.
	if _, err := tbl.Upsert(ctx, Item{PartitionKey: "p", RowKey: "u", Count: 1, Note: &note}, table.Replace); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Upsert(ctx, Item{PartitionKey: "p", RowKey: "u", Count: 5}, table.Merge); err != nil {
		t.Fatal(err)
	}
	got, _ = tbl.Get(ctx, "p", "u", nil)
	if got.Count != 5 || got.Note == nil {
		t.Fatalf("after upsert merge: %+v", got)
	}

	// Unconditional writes are explicit.
	if _, err := tbl.Update(ctx, Item{PartitionKey: "p", RowKey: "u", Count: 6}, table.Merge, table.AnyETag); err != nil {
		t.Fatal(err)
	}
	if err := tbl.Delete(ctx, "p", "u", table.AnyETag); err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Get(ctx, "p", "u", nil); !errors.Is(err, tablekit.ErrNotFound) || !errors.As(err, &re) || re.StatusCode != 404 {
		t.Fatalf("Get deleted: err = %v, want tablekit.ErrNotFound", err)
	}
	if err := tbl.Delete(ctx, "p", "u", table.AnyETag); !errors.Is(err, tablekit.ErrNotFound) {
		t.Fatalf("Delete missing: err = %v, want tablekit.ErrNotFound", err)
	}
	if _, err := tbl.Update(ctx, Item{PartitionKey: "p", RowKey: "u"}, table.Merge, table.AnyETag); !errors.Is(err, tablekit.ErrNotFound) {
		t.Fatalf("Update missing: err = %v, want tablekit.ErrNotFound", err)
	}
}

func TestProjection(t *testing.T) {
	tbl, _ := newRecordedTable[Everything](t, nil)
	ctx := testenv.Ctx(t)
	in := sample()
	if _, err := tbl.Add(ctx, in); err != nil {
		t.Fatal(err)
	}
	got, err := tbl.Get(ctx, in.PartitionKey, in.RowKey, &table.GetOptions{Select: []string{"Name", "Big"}})
	if err != nil {
		t.Fatal(err)
	}
	want := Everything{PartitionKey: in.PartitionKey, RowKey: in.RowKey, Name: in.Name, Big: in.Big, Meta: got.Meta}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("projection:\n got %+v\nwant %+v", got, want)
	}
	if got.ETag == "" {
		t.Errorf("projection lost the ETag")
	}
	if _, err := tbl.Get(ctx, in.PartitionKey, "missing", &table.GetOptions{Select: []string{"Name"}}); !errors.Is(err, tablekit.ErrNotFound) {
		t.Errorf("projected Get of a missing entity: err = %v, want tablekit.ErrNotFound", err)
	}
	if _, err := tbl.Get(ctx, "p", "r", &table.GetOptions{Select: []string{"Nope"}}); !errors.Is(err, tablekit.ErrInvalid) {
		t.Errorf("select of an unknown property: err = %v, want tablekit.ErrInvalid", err)
	}
}

func TestTableLifecycle(t *testing.T) {
	type E struct{ PartitionKey, RowKey string }
	env := testenv.Azurite(t)
	svc, err := table.NewService(env.ConnectionString, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := testenv.Ctx(t)
	name := testenv.TableName(t)
	tbl, err := table.New[E](svc, name)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tbl.Get(ctx, "p", "r", nil); !errors.Is(err, tablekit.ErrTableNotFound) && !errors.Is(err, tablekit.ErrNotFound) {
		t.Fatalf("Get on a missing table: %v", err)
	}
	if _, err := tbl.Add(ctx, E{"p", "r"}); !errors.Is(err, tablekit.ErrTableNotFound) {
		t.Fatalf("Add on a missing table: err = %v, want tablekit.ErrTableNotFound", err)
	}
	for i := 0; i < 2; i++ { // create is idempotent
		if err := svc.CreateTable(ctx, name); err != nil {
			t.Fatalf("CreateTable #%d: %v", i+1, err)
		}
	}
	if _, err := tbl.Add(ctx, E{"p", "r"}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ { // delete is idempotent
		if err := svc.DeleteTable(ctx, tbl.Name()); err != nil {
			t.Fatalf("DeleteTable #%d: %v", i+1, err)
		}
	}
}

func TestNoEcho(t *testing.T) {
	type Big struct {
		PartitionKey, RowKey string
		Payload              string
	}
	tbl, rec := newRecordedTable[Big](t, nil)
	ctx := testenv.Ctx(t)
	payload := strings.Repeat("x", 20000)
	before := rec.Bytes()
	if _, err := tbl.Add(ctx, Big{"p", "a", payload}); err != nil {
		t.Fatal(err)
	}
	if got := rec.Last().Header.Get("Prefer"); got != "return-no-content" {
		t.Errorf("Prefer = %q, want return-no-content", got)
	}
	if got := rec.Bytes() - before; got > 100 {
		t.Errorf("Add downloaded %d body bytes, want ~0 (no echo)", got)
	}
	// Plain aztables code gets the same through ClientOptions...
	body, _ := tbl.Marshal(Big{"p", "b", payload})
	before = rec.Bytes()
	if _, err := tbl.Client().AddEntity(ctx, body, nil); err != nil {
		t.Fatal(err)
	}
	if got := rec.Bytes() - before; got > 100 {
		t.Errorf("aztables AddEntity with ClientOptions downloaded %d bytes, want ~0", got)
	}
	// ...and the echo back when asked for.
	echo, _ := newRecordedTable[Big](t, &table.Options{EchoInserts: true})
	body, _ = echo.Marshal(Big{"p", "c", payload})
	resp, err := echo.Client().AddEntity(ctx, body, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(resp.Value), payload) {
		t.Errorf("EchoInserts: AddEntity value has no entity")
	}
}

// TestAddEcho: Table.Add follows Options.EchoInserts like aztables' own
// AddEntity does, because the one no-echo policy serves both.
func TestAddEcho(t *testing.T) {
	type Big struct {
		PartitionKey, RowKey string
		Payload              string
	}
	payload := strings.Repeat("x", 20000)
	tests := []struct {
		name       string
		opts       *table.Options
		wantPrefer string
		wantStatus int
		wantEcho   bool
	}{
		{"default", nil, "return-no-content", http.StatusNoContent, false},
		{"EchoInserts", &table.Options{EchoInserts: true}, "", http.StatusCreated, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tbl, rec := newRecordedTable[Big](t, tc.opts)
			before := rec.Bytes()
			res, err := tbl.Add(testenv.Ctx(t), Big{"p", "r", payload})
			if err != nil {
				t.Fatal(err)
			}
			if res.ETag == "" || res.Timestamp.IsZero() {
				t.Errorf("Result: got %+v, want ETag and Timestamp", res)
			}
			if got := rec.Last().Header.Get("Prefer"); got != tc.wantPrefer {
				t.Errorf("Prefer: got %q, want %q", got, tc.wantPrefer)
			}
			if got := rec.LastStatus(); got != tc.wantStatus {
				t.Errorf("status: got %d, want %d", got, tc.wantStatus)
			}
			if got := rec.Bytes() - before; (got >= int64(len(payload))) != tc.wantEcho {
				t.Errorf("response body: got %d bytes, want the entity echoed: %v", got, tc.wantEcho)
			}
		})
	}
}

// TestZeroModeReplaces: the zero Mode replaces, as in package batch: a
// property the new value leaves out is gone afterwards, for Upsert and
// Update alike.
func TestZeroModeReplaces(t *testing.T) {
	type Item struct {
		PartitionKey, RowKey string
		Note                 *string
		table.Meta
	}
	tbl := testenv.NewTable[Item](t, testenv.Azurite(t).NewService(t, nil))
	ctx := testenv.Ctx(t)
	note := "kept by a merge only"
	for _, tc := range []struct {
		name  string
		write func(etag azcore.ETag) error
	}{
		{"Upsert", func(azcore.ETag) error {
			_, err := tbl.Upsert(ctx, Item{PartitionKey: "p", RowKey: "u"}, 0)
			return err
		}},
		{"Update", func(etag azcore.ETag) error {
			_, err := tbl.Update(ctx, Item{PartitionKey: "p", RowKey: "u"}, 0, etag)
			return err
		}},
	} {
		m, err := tbl.Upsert(ctx, Item{PartitionKey: "p", RowKey: "u", Note: &note}, table.Replace)
		if err != nil {
			t.Fatal(err)
		}
		if err := tc.write(m.ETag); err != nil {
			t.Fatalf("%s with the zero Mode: %v", tc.name, err)
		}
		got, err := tbl.Get(ctx, "p", "u", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got.Note != nil {
			t.Errorf("%s with the zero Mode: got Note %q, want none (replaced)", tc.name, *got.Note)
		}
	}
}

// TestParallelAddsKeepTheirBodies: inserts made at once, each encoded into
// a pooled buffer with a pooled header map, reach the service whole and as
// their own: no buffer or map is reused while a request still reads it.
// Sizes run from small to past the pool's largest kept buffer (64 KiB).
func TestParallelAddsKeepTheirBodies(t *testing.T) {
	type Note struct {
		PartitionKey, RowKey string
		A, B, C              string
	}
	tbl := testenv.NewTable[Note](t, testenv.Azurite(t).NewService(t, nil))
	ctx := testenv.Ctx(t)
	const workers, each = 4, 40
	note := func(w, i int) Note {
		s := strings.Repeat(string(rune('a'+w)), 1+i*i*16) // up to 24 KB a property
		return Note{"p", strconv.Itoa(w*each + i), s, s + "b", s + "c"}
	}
	errs := make(chan error, workers)
	for w := range workers {
		go func() {
			for i := range each {
				if _, err := tbl.Add(ctx, note(w, i)); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range workers {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	for w := range workers {
		for i := range each {
			want := note(w, i)
			got, err := tbl.Get(ctx, want.PartitionKey, want.RowKey, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("entity %d of worker %d: got properties of %d, %d, %d bytes, want %d, %d, %d",
					i, w, len(got.A), len(got.B), len(got.C), len(want.A), len(want.B), len(want.C))
			}
		}
	}
}
