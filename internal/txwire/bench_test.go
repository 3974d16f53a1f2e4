package txwire_test

import (
	"bytes"
	"io"
	"net/http"
	"strconv"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/devtools/workload"
	"github.com/tablekit/tablekit/internal/txwire"
)

// BenchmarkBody writes the $batch body of a 100-operation transaction of
// upserts of the benchmark entity (devtools/workload), encoded beforehand:
// every part (AppendPart) and the body around them (Body), the wire work of
// one transaction once its entities are encoded. It needs no emulator;
// CONTRIBUTING.md has the command that compares two commits.
func BenchmarkBody(b *testing.B) {
	items := workload.Items(0, workload.TxOps)
	t := workload.TypedTable(&workload.Service{})
	entities := make([][]byte, len(items))
	ops := make([]txwire.Op, len(items))
	for i := range items {
		items[i].PartitionKey = workload.PartitionKey(0)
		e, err := t.Marshal(items[i])
		if err != nil {
			b.Fatal(err)
		}
		entities[i] = e
		ops[i] = txwire.Op{Type: aztables.TransactionTypeInsertReplace, PartitionKey: items[i].PartitionKey, RowKey: items[i].RowKey, EntityLen: len(e)}
	}
	s := txwire.NewSizer("http://127.0.0.1:10002/devstoreaccount1", "bench", false)
	parts := make([][]byte, len(ops))
	build := func() ([]byte, error) {
		for i := range ops {
			p, err := s.AppendPart(nil, ops[i], entities[i])
			if err != nil {
				return nil, err
			}
			parts[i] = p
		}
		body, _ := txwire.AppendBody(nil, parts)
		return body, nil
	}
	body, err := build()
	if err != nil {
		b.Fatal(err)
	}
	want := txwire.Envelope()
	for _, op := range ops {
		n, err := s.OpSize(op)
		if err != nil {
			b.Fatal(err)
		}
		want += n
	}
	if got := len(body); got != want {
		b.Fatalf("body of %d bytes, want %d (Envelope plus every OpSize)", got, want)
	}
	if got := bytes.Count(body, []byte("Content-Type: application/http\r\n")); got != len(ops) {
		b.Fatalf("body holds %d parts, want %d", got, len(ops))
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := build(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(ops)), "ns/entity")
}

// BenchmarkParse reads the reply to a 100-operation transaction as the
// in-process service of devtools/workload writes it (each part a 204 with
// its ETag and Content-ID): the reply's share of a bulk write's client CPU.
func BenchmarkParse(b *testing.B) {
	parts := make([][]byte, workload.TxOps)
	s := txwire.NewSizer("http://127.0.0.1:10002/devstoreaccount1", "bench", false)
	for i := range parts {
		op := txwire.Op{Type: aztables.TransactionTypeInsertReplace, PartitionKey: "p", RowKey: strconv.Itoa(i), EntityLen: 2}
		p, err := s.AppendPart(nil, op, []byte("{}"))
		if err != nil {
			b.Fatal(err)
		}
		parts[i] = p
	}
	body, ct := txwire.AppendBody(nil, parts)
	req, err := http.NewRequest(http.MethodPost, "http://127.0.0.1:10002/devstoreaccount1/$batch", bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", ct)
	resp, err := (&workload.Service{}).Do(req)
	if err != nil {
		b.Fatal(err)
	}
	reply, err := io.ReadAll(resp.Body)
	if err != nil {
		b.Fatal(err)
	}
	replyType := resp.Header.Get("Content-Type")
	got, err := txwire.Parse(replyType, reply)
	if err != nil || len(got) != len(parts) {
		b.Fatalf("got %d parts, %v; want %d", len(got), err, len(parts))
	}
	b.SetBytes(int64(len(reply)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := txwire.Parse(replyType, reply); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(parts)), "ns/entity")
}
