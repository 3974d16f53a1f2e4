package workload

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
)

// BenchmarkClient runs every client-overhead benchmark:
//
//	go test -run '^$' -bench . -benchmem ./devtools/workload
func BenchmarkClient(b *testing.B) {
	for _, bb := range Benchmarks() {
		b.Run(bb.Name, bb.F)
	}
}

// capture records the request bodies a path sends to Service.
type capture struct {
	Service
	mu     sync.Mutex
	bodies [][]byte
	prefer []string
}

func (c *capture) Do(req *http.Request) (*http.Response, error) {
	body, err := io.ReadAll(req.Body)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.bodies = append(c.bodies, body)
	c.prefer = append(c.prefer, req.Header.Get("Prefer"))
	c.mu.Unlock()
	req.Body = io.NopCloser(bytes.NewReader(body))
	return c.Service.Do(req)
}

// Every write path must send the same entity (same values and EDM types),
// or the comparison would be unfair.
func TestWritePathsSendTheSameEntity(t *testing.T) {
	its := Items(0, 20)
	paths := map[string]func(*capture, *Item) error{
		"typed": func(c *capture, it *Item) error {
			_, err := TypedTable(c).Add(context.Background(), *it)
			return err
		},
		"map": func(c *capture, it *Item) error {
			b, err := MarshalMap(it)
			if err != nil {
				return err
			}
			_, err = PlainClient(c).AddEntity(noEcho(), b, nil)
			return err
		},
		"edm": func(c *capture, it *Item) error {
			b, err := MarshalEDM(it)
			if err != nil {
				return err
			}
			_, err = PlainClient(c).AddEntity(noEcho(), b, nil)
			return err
		},
	}
	dec := TypedTable(&Service{})
	for name, send := range paths {
		for i := range its {
			c := &capture{}
			if err := send(c, &its[i]); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if len(c.bodies) != 1 || c.prefer[0] != "return-no-content" {
				t.Fatalf("%s: %d requests, Prefer %q", name, len(c.bodies), c.prefer)
			}
			got, err := dec.Unmarshal(c.bodies[0])
			if err != nil {
				t.Fatalf("%s: decoding what was sent: %v\n%s", name, err, c.bodies[0])
			}
			if got != its[i] {
				t.Errorf("%s sent %+v\nwant %+v", name, got, its[i])
			}
			if !bytes.Contains(c.bodies[0], []byte(`"Version@odata.type":"Edm.Int64"`)) ||
				!bytes.Contains(c.bodies[0], []byte(`"Created@odata.type":"Edm.DateTime"`)) ||
				!bytes.Contains(c.bodies[0], []byte(`"Ref@odata.type":"Edm.Guid"`)) {
				t.Errorf("%s: EDM annotations missing:\n%s", name, c.bodies[0])
			}
		}
	}
}

func TestEntityIsAboutOneKB(t *testing.T) {
	for i := 0; i < 100; i++ {
		it := NewItem(i)
		b, err := TypedTable(&Service{}).Marshal(it)
		if err != nil {
			t.Fatal(err)
		}
		if len(b) < 900 || len(b) > 1300 {
			t.Errorf("entity %d is %d bytes", i, len(b))
		}
	}
}

func TestPageDecodes(t *testing.T) {
	its, _, pg := fixture()
	dec := TypedTable(&Service{})
	for i, e := range pg {
		got, err := dec.Unmarshal(e)
		if err != nil {
			t.Fatal(err)
		}
		if got.ETag == "" || got.Timestamp.IsZero() {
			t.Errorf("entity %d: no ETag/Timestamp: %+v", i, got.Meta)
		}
		got.Meta = its[i].Meta
		if got != its[i] {
			t.Fatalf("entity %d: got %+v\nwant %+v", i, got, its[i])
		}
		var edm aztables.EDMEntity
		if err := json.Unmarshal(e, &edm); err != nil {
			t.Fatal(err)
		}
		if edm.RowKey != its[i].RowKey || edm.Properties["Version"] != aztables.EDMInt64(its[i].Version) {
			t.Fatalf("entity %d: EDMEntity %+v", i, edm)
		}
	}
}

func TestEchoWhenAsked(t *testing.T) {
	c := PlainClient(&Service{})
	it := NewItem(1)
	b, _ := MarshalMap(&it)
	resp, err := c.AddEntity(context.Background(), b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(resp.Value, []byte(it.Description)) {
		t.Errorf("no echo: %s", resp.Value)
	}
	resp, err = c.AddEntity(noEcho(), b, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Value) > 4 {
		t.Errorf("echo despite Prefer: %s", resp.Value)
	}
}
