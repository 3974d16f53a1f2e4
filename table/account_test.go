package table_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/table"
)

func newService(t *testing.T, o *table.Options) *table.Service {
	t.Helper()
	env := testenv.Azurite(t)
	svc, err := table.NewService(env.ConnectionString, o)
	if err != nil {
		t.Fatal(err)
	}
	return svc
}

func TestTablesPrefix(t *testing.T) {
	svc := newService(t, nil)
	ctx := ctxT(t)
	base := testenv.TableName(t)
	names := []string{base + "a", base + "b", base + "c"}
	for _, n := range append(slices.Clone(names), "x"+base) {
		if err := svc.CreateTable(ctx, n); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = svc.DeleteTable(ctx, n) })
	}
	tests := []struct {
		name string
		o    *table.ListTablesOptions
		stop int // break after this many; 0 reads all
		want []string
	}{
		{"prefix, one per page", &table.ListTablesOptions{Prefix: base, PageSize: 1}, 0, names},
		{"prefix, default page", &table.ListTablesOptions{Prefix: base}, 0, names},
		{"break early", &table.ListTablesOptions{Prefix: base, PageSize: 1}, 2, names[:2]},
		{"prefix of one", &table.ListTablesOptions{Prefix: base + "b"}, 0, names[1:2]},
		{"no match", &table.ListTablesOptions{Prefix: base + "z"}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for n, err := range svc.Tables(ctx, tt.o) {
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, n)
				if len(got) == tt.stop {
					break
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Tables(%+v) = %v, want %v", tt.o, got, tt.want)
			}
		})
	}
	// Without a prefix every table is listed, ours among them.
	var all []string
	for n, err := range svc.Tables(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, n)
	}
	for _, n := range append(slices.Clone(names), "x"+base) {
		if !slices.Contains(all, n) {
			t.Errorf("Tables(nil) lacks %s", n)
		}
	}
}

func TestTablesOptionsAndErrors(t *testing.T) {
	svc := newService(t, nil)
	for _, size := range []int32{-1, 1001} {
		for _, err := range svc.Tables(ctxT(t), &table.ListTablesOptions{PageSize: size}) {
			if !errors.Is(err, table.ErrInvalidOptions) {
				t.Errorf("PageSize %d: error = %v, want ErrInvalidOptions", size, err)
			}
		}
	}
	// Create and delete keep their typed results: creating twice and
	// deleting a missing table are no errors, a bad name is refused.
	ctx := ctxT(t)
	name := testenv.TableName(t)
	for i := range 2 {
		if err := svc.CreateTable(ctx, name); err != nil {
			t.Fatalf("CreateTable #%d: %v", i+1, err)
		}
	}
	for i := range 2 {
		if err := svc.DeleteTable(ctx, name); err != nil {
			t.Fatalf("DeleteTable #%d: %v", i+1, err)
		}
	}
	if err := svc.CreateTable(ctx, "no"); !errors.Is(err, table.ErrInvalidTableName) {
		t.Errorf("CreateTable(\"no\") = %v, want ErrInvalidTableName", err)
	}
}

func TestServiceProperties(t *testing.T) {
	svc := newService(t, nil)
	ctx := ctxT(t)
	before, err := svc.Properties(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.SetProperties(ctx, before) })
	rule := &aztables.CorsRule{
		AllowedOrigins:  to.Ptr("https://app.example.com"),
		AllowedMethods:  to.Ptr("GET,PUT"),
		AllowedHeaders:  to.Ptr("x-ms-*"),
		ExposedHeaders:  to.Ptr("x-ms-request-id"),
		MaxAgeInSeconds: to.Ptr[int32](600),
	}
	if err := svc.SetProperties(ctx, aztables.ServiceProperties{Cors: []*aztables.CorsRule{rule}}); err != nil {
		t.Fatal(err)
	}
	got, err := svc.Properties(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Cors) != 1 || *got.Cors[0].AllowedOrigins != *rule.AllowedOrigins || *got.Cors[0].MaxAgeInSeconds != 600 {
		t.Errorf("Cors after SetProperties = %+v, want the one rule %+v", got.Cors, rule)
	}
}

// Azurite answers Stats on the account's secondary path, where it is sent;
// asked on the primary's path (an explicit SecondaryEndpoint that is the
// primary) it answers 400, which must come back as a typed tablekit error
// with the response still reachable.
func TestStatsOnAzurite(t *testing.T) {
	st, err := newService(t, &table.Options{NoRetry: true}).Stats(ctxT(t))
	if err != nil || st.Status != aztables.GeoReplicationStatusLive {
		t.Errorf("Stats = %+v, %v; want live", st, err)
	}
	env := testenv.Azurite(t)
	_, err = newService(t, &table.Options{NoRetry: true, SecondaryEndpoint: env.Endpoint}).Stats(ctxT(t))
	var se *table.ServiceError
	if !errors.As(err, &se) {
		t.Fatalf("Stats error = %v, want a *table.ServiceError", err)
	}
	if !errors.Is(err, table.ErrBadRequest) && !errors.Is(err, table.ErrService) {
		t.Errorf("Stats error = %v, want ErrBadRequest or ErrService", err)
	}
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Errorf("Stats error %v does not keep the *azcore.ResponseError", err)
	}
}

func TestAccessPolicy(t *testing.T) {
	svc := newService(t, nil)
	ctx := ctxT(t)
	name := testenv.TableName(t)
	if err := svc.CreateTable(ctx, name); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.DeleteTable(ctx, name) })

	start := time.Date(2030, 1, 2, 3, 4, 5, 600, time.UTC)
	want := []table.AccessPolicy{
		{ID: "readers", Permission: "r", Start: start, Expiry: start.Add(time.Hour)},
		{ID: "writers", Permission: "raud", Start: start, Expiry: start.Add(2 * time.Hour)},
	}
	// Azurite refuses (400) a policy without Start, Expiry or Permission,
	// which the service allows; both policies here carry all three.
	if err := svc.SetAccessPolicy(ctx, name, want); err != nil {
		t.Fatal(err)
	}
	got, err := svc.AccessPolicy(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		want[i].Start, want[i].Expiry = want[i].Start.Truncate(time.Second), want[i].Expiry.Truncate(time.Second)
	}
	if len(got) != len(want) {
		t.Fatalf("AccessPolicy = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].ID != want[i].ID || got[i].Permission != want[i].Permission || !got[i].Start.Equal(want[i].Start) || !got[i].Expiry.Equal(want[i].Expiry) {
			t.Errorf("AccessPolicy[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
	if err := svc.SetAccessPolicy(ctx, name, nil); err != nil {
		t.Fatal(err)
	}
	if got, err := svc.AccessPolicy(ctx, name); err != nil || len(got) != 0 {
		t.Errorf("AccessPolicy after clearing = %+v, %v; want none", got, err)
	}

	errTests := []struct {
		name  string
		table string
		ps    []table.AccessPolicy
		want  error
	}{
		{"six policies", name, make([]table.AccessPolicy, 6), table.ErrInvalidOptions},
		{"empty ID", name, []table.AccessPolicy{{Permission: "r"}}, table.ErrInvalidOptions},
		{"long ID", name, []table.AccessPolicy{{ID: strings.Repeat("x", 65)}}, table.ErrInvalidOptions},
		{"expiry before start", name, []table.AccessPolicy{{ID: "a", Start: start, Expiry: start}}, table.ErrInvalidOptions},
		{"bad table name", "a-b", nil, table.ErrInvalidTableName},
		{"missing table", testenv.TableName(t), want, table.ErrTableNotFound},
	}
	for _, tt := range errTests {
		if err := svc.SetAccessPolicy(ctx, tt.table, tt.ps); !errors.Is(err, tt.want) {
			t.Errorf("%s: SetAccessPolicy error = %v, want %v", tt.name, err, tt.want)
		}
	}
	if _, err := svc.AccessPolicy(ctx, testenv.TableName(t)); !errors.Is(err, table.ErrTableNotFound) {
		t.Errorf("AccessPolicy of a missing table: error = %v, want ErrTableNotFound", err)
	}
}
