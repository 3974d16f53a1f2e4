package testenv

import (
	"context"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"

	"github.com/tablekit/tablekit/table"
)

// Context is a context for one test: it ends after d or when the test ends.
func Context(tb testing.TB, d time.Duration) context.Context {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	tb.Cleanup(cancel)
	return ctx
}

// Ctx is the context of most tests: Context with a 2-minute deadline, far
// beyond what a passing test takes against Azurite, so that only a hung
// request meets it. Use Context when a test needs another deadline.
func Ctx(tb testing.TB) context.Context {
	tb.Helper()
	return Context(tb, 2*time.Minute)
}

// Recorder is a transport that forwards to tablekit's tuned HTTP client and
// records what was sent and received, so tests can prove how many requests
// a call made (none, when validation refused it), with which query, and how
// many response body bytes came back. Safe for concurrent use.
type Recorder struct {
	next     *http.Client
	mu       sync.Mutex
	reqs     []*http.Request
	statuses []int // of every response, 0 for a transport error
	bytes    int64 // response body bytes read, chunked bodies included
}

var _ policy.Transporter = (*Recorder)(nil)

// NewRecorder returns a Recorder in front of TunedClient().
func NewRecorder() *Recorder { return &Recorder{next: TunedClient()} }

// TunedClient is the tuned *http.Client that table.ClientOptions installs,
// for tests and benchmarks that wrap it.
func TunedClient() *http.Client {
	hc, ok := table.ClientOptions(nil).Transport.(*http.Client)
	if !ok {
		panic("testenv: table.ClientOptions no longer installs an *http.Client")
	}
	return hc
}

// Do records req, sends it, and counts the response body as it is read.
func (r *Recorder) Do(req *http.Request) (*http.Response, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.mu.Unlock()
	resp, err := r.next.Do(req)
	status := 0
	if err == nil {
		status = resp.StatusCode
		resp.Body = &countingBody{ReadCloser: resp.Body, r: r}
	}
	r.mu.Lock()
	r.statuses = append(r.statuses, status)
	r.mu.Unlock()
	return resp, err
}

// Count is the number of requests sent so far.
func (r *Recorder) Count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.reqs)
}

// Last is the last request sent; nil if none.
func (r *Recorder) Last() *http.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.reqs) == 0 {
		return nil
	}
	return r.reqs[len(r.reqs)-1]
}

// LastStatus is the status of the last response, 0 for a transport error
// or when nothing was sent.
func (r *Recorder) LastStatus() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.statuses) == 0 {
		return 0
	}
	return r.statuses[len(r.statuses)-1]
}

// Take returns the requests recorded since the last Take and forgets them.
func (r *Recorder) Take() []*http.Request {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := r.reqs
	r.reqs, r.statuses = nil, nil
	return out
}

// Bytes is the number of response body bytes read so far.
func (r *Recorder) Bytes() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.bytes
}

// countingBody adds what is read from a response body to the recorder.
type countingBody struct {
	io.ReadCloser
	r *Recorder
}

func (b *countingBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.r.mu.Lock()
	b.r.bytes += int64(n)
	b.r.mu.Unlock()
	return n, err
}

// NewTable opens a uniquely named table of T on svc, creates it, and
// deletes it when the test ends.
func NewTable[T any](tb testing.TB, svc *table.Service) *table.Table[T] {
	tb.Helper()
	tbl, err := table.New[T](svc, TableName(tb))
	if err != nil {
		tb.Fatal(err)
	}
	if err := svc.CreateTable(Context(tb, 30*time.Second), tbl.Name()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = svc.DeleteTable(context.Background(), tbl.Name()) })
	return tbl
}

// NewService connects to the emulator with the development account's key
// and tablekit's options o (nil for defaults).
func (e *Env) NewService(tb testing.TB, o *table.Options) *table.Service {
	tb.Helper()
	svc, err := table.NewServiceWithSharedKey(e.Endpoint, e.Account, e.Key, o)
	if err != nil {
		tb.Fatal(err)
	}
	return svc
}

// packagePrefix matches a tablekit package's prefix where a message or a
// wrapped message starts: "table: ", "batch: ", ..., and "tablekit: " or
// the command's "tablekit NAME: ", which are one prefix, tablekit's.
// The space after the colon is checked apart, not matched, so that it can
// start the next prefix ("tablekit get: tablekit: ").
var packagePrefix = regexp.MustCompile(`(?:^|[\s(;:])(tablekit(?: [a-z]+)?|table|query|batch|sas|retry|codec|txwire|wire):`)

// commandPrefix begins a message of the tablekit command.
var commandPrefix = regexp.MustCompile(`^tablekit [a-z]+: `)

// RepeatedPrefix returns the first package prefix that msg says more than
// once ("table: invalid key: table: invalid entity: ..."), or a phrase of
// two words or more said twice in a row ("table name table name must"),
// or "": a wrapped error says each thing once. tablekit's own prefix counts
// in the command's messages ("tablekit get: tablekit: not found"); the
// library's errors carry it in each sentinel they wrap.
func RepeatedPrefix(msg string) string {
	command := commandPrefix.MatchString(msg)
	seen := map[string]bool{}
	for _, m := range packagePrefix.FindAllStringSubmatchIndex(msg, -1) {
		if m[1] >= len(msg) || msg[m[1]] != ' ' {
			continue
		}
		p := msg[m[2]:m[3]]
		if strings.HasPrefix(p, "tablekit") {
			if !command {
				continue
			}
			p = "tablekit"
		}
		if seen[p] {
			return p + ": "
		}
		seen[p] = true
	}
	words := strings.Fields(msg)
	for i := range words {
		for n := 2; i+2*n <= len(words); n++ {
			if slices.Equal(words[i:i+n], words[i+n:i+2*n]) && strings.ContainsFunc(strings.Join(words[i:i+n], ""), unicode.IsLetter) {
				return strings.Join(words[i:i+n], " ") + " "
			}
		}
	}
	return ""
}

// Convert turns v into a D as a write and a read would: v's JSON as an S
// (Table.Marshal) read as a D (Table.Unmarshal), for tests that put
// entities of several Go types in one table.
func Convert[D, S any](v S) (D, error) {
	var zero D
	svc, err := table.NewService("UseDevelopmentStorage=true", nil)
	if err != nil {
		return zero, err
	}
	from, err := table.New[S](svc, "convert")
	if err != nil {
		return zero, err
	}
	to, err := table.As[D](from)
	if err != nil {
		return zero, err
	}
	body, err := from.Marshal(v)
	if err != nil {
		return zero, err
	}
	return to.Unmarshal(body)
}
