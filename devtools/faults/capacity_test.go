package faults_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit/devtools/faults"
)

// batchBody is a $batch body of n inserts into partition pk.
func batchBody(pk string, n int) string {
	var b strings.Builder
	for i := range n {
		b.WriteString("--changeset_1\r\nContent-Type: application/http\r\n\r\nPOST http://127.0.0.1/devstoreaccount1/t HTTP/1.1\r\n\r\n")
		b.WriteString(`{"PartitionKey":"` + pk + `","RowKey":"` + strings.Repeat("r", i+1) + "\"}\r\n")
	}
	return b.String() + "--changeset_1--\r\n"
}

func TestCapacity(t *testing.T) {
	type req struct {
		method, path, body string
		want               int
	}
	batch := "/devstoreaccount1/$batch"
	tests := []struct {
		name     string
		capacity faults.Capacity
		reqs     []req
	}{
		{"transactions count their operations", faults.Capacity{EntitiesPerSecond: 1}, []req{
			{http.MethodPost, batch, batchBody("a", 60), http.StatusOK},
			{http.MethodPost, batch, batchBody("a", 60), http.StatusServiceUnavailable},
			{http.MethodGet, "/devstoreaccount1/t()", "", http.StatusOK},
			{http.MethodPost, batch, batchBody("a", 39), http.StatusOK},
			{http.MethodGet, "/devstoreaccount1/t()", "", http.StatusServiceUnavailable},
		}},
		{"per partition", faults.Capacity{EntitiesPerSecond: 1, PerPartition: true}, []req{
			{http.MethodPost, batch, batchBody("a", 100), http.StatusOK},
			{http.MethodPost, batch, batchBody("a", 1), http.StatusServiceUnavailable},
			{http.MethodPost, batch, batchBody("b", 100), http.StatusOK},
			{http.MethodDelete, "/devstoreaccount1/t(PartitionKey='c',RowKey='r')", "", http.StatusOK},
			{http.MethodGet, "/devstoreaccount1/t()", "", http.StatusOK},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			up := startUpstream(t)
			px := startProxy(t, up.URL)
			px.SetCapacity(&tt.capacity)
			c := newClient(t)
			for i, r := range tt.reqs {
				resp, body, err := send(t, c, r.method, px.URL()+r.path, r.body)
				if err != nil {
					t.Fatalf("request %d: %v", i, err)
				}
				if got := resp.StatusCode; got != r.want {
					t.Fatalf("request %d: got status %d, want %d", i, got, r.want)
				}
				if r.want == http.StatusServiceUnavailable {
					if got, want := resp.Header.Get("x-ms-error-code"), "ServerBusy"; got != want {
						t.Errorf("request %d: got code %q, want %q", i, got, want)
					}
					if !strings.Contains(body, `"code":"ServerBusy"`) {
						t.Errorf("request %d: got body %s, want a ServerBusy error body", i, body)
					}
				} else if want := r.method + " " + r.body; body != want {
					t.Errorf("request %d: upstream got %q, want the body unchanged", i, body)
				}
			}
			arr := px.Arrivals()
			if got, want := len(arr), len(tt.reqs); got != want {
				t.Fatalf("got %d arrivals, want %d", got, want)
			}
			for i, a := range arr {
				if got, want := a.Throttled, tt.reqs[i].want == http.StatusServiceUnavailable; got != want {
					t.Errorf("arrival %d: got throttled %v, want %v", i, got, want)
				}
			}
			var ok int
			for _, r := range tt.reqs {
				if r.want == http.StatusOK {
					ok++
				}
			}
			if got := int(up.hits.Load()); got != ok {
				t.Errorf("upstream got %d requests, want %d (a throttled one is never forwarded)", got, ok)
			}
			px.SetCapacity(nil)
			if resp, _, err := send(t, c, http.MethodPost, px.URL()+batch, batchBody("a", 100)); err != nil || resp.StatusCode != http.StatusOK {
				t.Errorf("after SetCapacity(nil): got %v, %v, want 200", resp, err)
			}
		})
	}
}

func TestCapacityArrivalEntities(t *testing.T) {
	up := startUpstream(t)
	px := startProxy(t, up.URL)
	px.SetCapacity(&faults.Capacity{EntitiesPerSecond: 1000, PerPartition: true})
	c := newClient(t)
	if _, _, err := send(t, c, http.MethodPost, px.URL()+"/devstoreaccount1/$batch", batchBody("p1", 7)); err != nil {
		t.Fatal(err)
	}
	arr := px.Arrivals()
	if len(arr) != 1 {
		t.Fatalf("got %d arrivals, want 1", len(arr))
	}
	if got, want := arr[0].Entities, 7; got != want {
		t.Errorf("got %d entities, want %d", got, want)
	}
	if got, want := arr[0].Partition, "p1"; got != want {
		t.Errorf("got partition %q, want %q", got, want)
	}
}

func TestBusiest(t *testing.T) {
	s := time.Second
	arr := []faults.Arrival{{At: 0, Entities: 500}, {At: s / 2, Entities: 100}, {At: s + s/10, Entities: 100}, {At: s + s/2, Entities: 100}, {At: 2*s + s/20, Entities: 30}, {At: 3 * s, Entities: 7}}
	tests := []struct {
		skip   time.Duration
		want   int
		wantAt time.Duration
	}{
		{0, 600, 0},
		{s, 230, s + s/10},
		{2 * s, 37, 2*s + s/20},
		{4 * s, 0, 0},
	}
	for _, tt := range tests {
		got, at := faults.Busiest(arr, tt.skip, s)
		if got != tt.want || at != tt.wantAt {
			t.Errorf("Busiest(skip %v) = %d at %v, want %d at %v", tt.skip, got, at, tt.want, tt.wantAt)
		}
	}
}
