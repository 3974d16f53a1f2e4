package payload_test

import (
	"bytes"
	"io"
	"net/http"
	"testing"

	"github.com/tablekit/tablekit/devtools/testenv"
	"github.com/tablekit/tablekit/internal/payload"
)

// TestAllocsReadDoubles: a body read with no size to go by (a chunked
// reply, no hint yet) grows its buffer by doubling, so a 1 MiB page is
// copied about once more, not five times over (a quarter at a time).
func TestAllocsReadDoubles(t *testing.T) {
	testenv.SkipAllocsUnderRace(t)
	body := bytes.Repeat([]byte("x"), 1<<20)
	var got []byte
	allocs := testing.AllocsPerRun(5, func() {
		resp := &http.Response{ContentLength: -1, Body: io.NopCloser(bytes.NewReader(body))}
		var err error
		if got, err = payload.Read(resp, 0); err != nil {
			t.Fatal(err)
		}
	})
	if !bytes.Equal(got, body) {
		t.Fatalf("read %d bytes, want the %d written", len(got), len(body))
	}
	// 512 bytes doubled to 1 MiB and past it (13 buffers), the response,
	// its body reader and the Body left in its place.
	if want := 16.0; allocs > want {
		t.Errorf("%v allocations to read 1 MiB, want at most %v", allocs, want)
	}
}
