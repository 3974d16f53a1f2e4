package backend

import (
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/cloud"
)

func TestDetect(t *testing.T) {
	tests := []struct {
		endpoint string
		want     Kind
	}{
		{"https://acct.table.cosmos.azure.com", CosmosDB},
		{"https://acct.table.cosmos.azure.com:443/", CosmosDB},
		{"https://acct.table.cosmos.azure.com/mytable?sv=x&sig=y", CosmosDB},
		{"https://ACCT.Table.Cosmos.Azure.com", CosmosDB},
		{"https://acct.table.cosmosdb.azure.com", CosmosDB},
		{"https://acct.table.cosmos.azure.cn", CosmosDB},
		{"https://localhost:8902/", CosmosDB},
		{"https://acct.table.core.windows.net", TableStorage},
		{"http://127.0.0.1:10002/devstoreaccount1", TableStorage},
		{"https://localhost:10002/devstoreaccount1", TableStorage},
		{"http://127.0.0.1:8902/", TableStorage},
		{"https://tables.example.com", TableStorage},
		// Only the host counts: these name Cosmos DB in the path or query.
		{"https://acct.table.core.windows.net/x.table.cosmos.y", TableStorage},
		{"https://acct.table.core.windows.net/t?h=a.table.cosmosdb.b", TableStorage},
		{"https://cosmos.azure.com", TableStorage},
		{"", TableStorage},
		{"::not a url", TableStorage},
	}
	for _, tt := range tests {
		if got := Detect(tt.endpoint); got != tt.want {
			t.Errorf("Detect(%q): got %v, want %v", tt.endpoint, got, tt.want)
		}
	}
}

func TestFor(t *testing.T) {
	tests := []struct {
		endpoint string
		force    Kind
		want     Kind
	}{
		{"https://acct.table.cosmos.azure.com", Auto, CosmosDB},
		{"https://acct.table.core.windows.net", Auto, TableStorage},
		{"https://tables.example.com", CosmosDB, CosmosDB},
		{"https://acct.table.cosmos.azure.com", TableStorage, TableStorage},
	}
	for _, tt := range tests {
		p, err := For(tt.endpoint, tt.force)
		if err != nil {
			t.Fatalf("For(%q, %v): %v", tt.endpoint, tt.force, err)
		}
		if p.Kind != tt.want {
			t.Errorf("For(%q, %v): got %v, want %v", tt.endpoint, tt.force, p.Kind, tt.want)
		}
		if p != Of(tt.want) {
			t.Errorf("For(%q, %v): got %+v, want Of(%v)", tt.endpoint, tt.force, p, tt.want)
		}
	}
	if _, err := For("https://x", Kind(9)); err == nil || !strings.Contains(err.Error(), "unknown backend") {
		t.Errorf("For with Kind(9): got %v, want an unknown-backend error", err)
	}
}

func TestOfPanicsWithoutAConcreteKind(t *testing.T) {
	for _, k := range []Kind{Auto, Kind(7)} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Of(%v): got no panic, want one", k)
				}
			}()
			Of(k)
		}()
	}
}

// TestProfiles holds each documented number against the profile, so that
// a change to one is a decision someone makes with its source in hand.
func TestProfiles(t *testing.T) {
	s, c := Of(TableStorage), Of(CosmosDB)
	tests := []struct {
		name      string
		got, want any
	}{
		{"storage transaction ops", s.MaxTransactionOps, 100},
		{"storage transaction bytes (< 4 MiB)", s.MaxTransactionBytes, 4194303},
		{"storage entity", s.MaxEntityBytes, 1048576},
		{"storage entity rule", s.EntitySize, StorageFormula},
		{"storage keys", [2]Limit{s.PartitionKey, s.RowKey}, [2]Limit{{1024, UTF16Units}, {1024, UTF16Units}}},
		{"storage properties", s.MaxProperties, 252},
		{"storage string", s.MaxString, Limit{32768, UTF16Units}},
		{"storage binary", s.MaxBinaryBytes, 65536},
		{"storage page", s.MaxPageSize, 1000},
		{"storage order", s.KeyOrder, true},
		{"storage case", s.TableNamesCaseSensitive, false},
		{"storage calls", [5]bool{s.ServiceProperties, s.ServiceStats, s.AccessPolicies, s.CORS, s.SecondaryLocation}, [5]bool{true, true, true, true, true}},
		{"storage merge", s.MergeAsPost, false},
		{"storage reserved", len(s.ReservedProperties()), 0},

		{"cosmos transaction ops", c.MaxTransactionOps, 100},
		{"cosmos transaction bytes (2 MiB)", c.MaxTransactionBytes, 2097152},
		{"cosmos entity (2 MiB - 1)", c.MaxEntityBytes, 2097151},
		{"cosmos entity rule", c.EntitySize, JSONBytes},
		{"cosmos keys", [2]Limit{c.PartitionKey, c.RowKey}, [2]Limit{{1024, UTF8Bytes}, {255, UTF8Bytes}}},
		{"cosmos properties", c.MaxProperties, 252},
		{"cosmos page", c.MaxPageSize, 0},
		{"cosmos order", c.KeyOrder, false},
		{"cosmos case", c.TableNamesCaseSensitive, true},
		{"cosmos calls", [5]bool{c.ServiceProperties, c.ServiceStats, c.AccessPolicies, c.CORS, c.SecondaryLocation}, [5]bool{}},
		{"cosmos merge", c.MergeAsPost, true},
		{"cosmos reserved", strings.Join(c.ReservedProperties(), ","), "ID,rid,etag,ResourceId"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %v, want %v", tt.name, tt.got, tt.want)
		}
	}
}

func TestReservedPropertiesIsACopy(t *testing.T) {
	c := Of(CosmosDB)
	names := c.ReservedProperties()
	names[0] = "changed"
	if got, want := c.ReservedProperties()[0], "ID"; got != want {
		t.Errorf("after changing a returned slice: got %q, want %q", got, want)
	}
}

func TestReserved(t *testing.T) {
	tests := []struct {
		kind Kind
		name string
		want bool
	}{
		{CosmosDB, "ID", true},
		{CosmosDB, "rid", true},
		{CosmosDB, "etag", true},
		{CosmosDB, "ResourceId", true},
		{CosmosDB, "Id", false},
		{CosmosDB, "Name", false},
		{TableStorage, "ID", false},
		{TableStorage, "etag", false},
	}
	for _, tt := range tests {
		if got := Of(tt.kind).Reserved(tt.name); got != tt.want {
			t.Errorf("%v Reserved(%q): got %v, want %v", tt.kind, tt.name, got, tt.want)
		}
	}
}

func TestLimit(t *testing.T) {
	tests := []struct {
		name  string
		limit Limit
		s     string
		len   int
		fits  bool
	}{
		{"ascii at utf8 max", Limit{3, UTF8Bytes}, "abc", 3, true},
		{"ascii over utf8 max", Limit{3, UTF8Bytes}, "abcd", 4, false},
		{"two-byte runes in bytes", Limit{3, UTF8Bytes}, "éé", 4, false},
		{"two-byte runes in units", Limit{3, UTF16Units}, "ééé", 3, true},
		{"surrogate pair counts two", Limit{3, UTF16Units}, "a😀", 3, true},
		{"surrogate pairs over", Limit{3, UTF16Units}, "😀😀", 4, false},
		{"three-byte runes in units", Limit{2, UTF16Units}, "日本", 2, true},
		{"invalid byte counts one", Limit{2, UTF16Units}, "a\xff", 2, true},
		{"empty", Limit{0, UTF8Bytes}, "", 0, true},
	}
	for _, tt := range tests {
		if got := tt.limit.Len(tt.s); got != tt.len {
			t.Errorf("%s: Len got %d, want %d", tt.name, got, tt.len)
		}
		if got := tt.limit.Fits(tt.s); got != tt.fits {
			t.Errorf("%s: Fits got %v, want %v", tt.name, got, tt.fits)
		}
	}
}

func TestAudience(t *testing.T) {
	tests := []struct {
		kind  Kind
		cloud cloud.Configuration
		want  string
	}{
		{TableStorage, cloud.AzurePublic, "https://storage.azure.com"},
		{TableStorage, cloud.AzureChina, "https://storage.azure.com"},
		{CosmosDB, cloud.AzurePublic, "https://cosmos.azure.com"},
		{CosmosDB, cloud.AzureChina, "https://cosmos.azure.cn"},
		{CosmosDB, cloud.AzureGovernment, "https://cosmos.azure.us"},
		{CosmosDB, cloud.Configuration{}, ""},
	}
	for _, tt := range tests {
		if got := Of(tt.kind).Audience(tt.cloud); got != tt.want {
			t.Errorf("%v Audience(%s): got %q, want %q", tt.kind, tt.cloud.ActiveDirectoryAuthorityHost, got, tt.want)
		}
	}
}

func TestKindString(t *testing.T) {
	tests := []struct {
		k    Kind
		want string
	}{
		{Auto, "auto"},
		{TableStorage, "Azure Table Storage"},
		{CosmosDB, "Azure Cosmos DB for Table"},
		{Kind(9), "backend.Kind(9)"},
	}
	for _, tt := range tests {
		if got := tt.k.String(); got != tt.want {
			t.Errorf("Kind(%d).String(): got %q, want %q", uint8(tt.k), got, tt.want)
		}
	}
}
