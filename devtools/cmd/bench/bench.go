package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/tablekit/tablekit/devtools/azurite"
	"github.com/tablekit/tablekit/devtools/faults"
	"github.com/tablekit/tablekit/devtools/workload"
)

// config is the size of a run.
type config struct {
	quick  bool
	rounds int

	entities     int // bulk insert and scan: 50,000 entities
	seqSample    int // sequential AddEntity locally: a smaller fixed sample
	seqSampleLat int // ... and at 20 ms
	parSample    int // 16 goroutines of AddEntity locally
	parSampleLat int // ... and at 20 ms
	parWorkers   int
	txnOps       int
	txnWorkers   int

	latency     time.Duration // a client in another region
	latencyHigh time.Duration // a client far away

	scanParallel int // parallel scan: requests in flight

	connWorkers  int
	connRequests int

	bytesInserts int // inserts per side for bytes received

	bigCopy     int // entities of the command's copy measured for peak RSS
	cliPairs    int // times a round runs the library's scan and the export after it, and its write and the import
	capBulk     int // client capacity: entities the bulk writer writes
	capSegments int // ... and segments of 1,000 entities the scan reads

	overheadRounds int           // client-overhead benchmark repetitions (one run of the same code varies by a fifth here)
	benchTime      time.Duration // testing.Benchmark time per benchmark

	scenarioTimeout time.Duration // bound on one timed run

	only map[string]bool // run only these steps (nil: all), for development
}

func fullConfig() config {
	return config{
		rounds:          3,
		entities:        50_000,
		seqSample:       2_000,
		seqSampleLat:    300,
		parSample:       5_000,
		parSampleLat:    3_000,
		parWorkers:      16,
		txnOps:          100,
		txnWorkers:      4,
		latency:         20 * time.Millisecond,
		latencyHigh:     100 * time.Millisecond,
		scanParallel:    16,
		connWorkers:     64,
		connRequests:    2_000,
		bytesInserts:    500,
		bigCopy:         200_000,
		cliPairs:        5,
		capBulk:         50_000,
		capSegments:     50,
		overheadRounds:  9,
		benchTime:       500 * time.Millisecond,
		scenarioTimeout: 3 * time.Minute,
	}
}

// quickConfig is a smoke run: every scenario, tiny counts, one round.
func quickConfig() config {
	c := fullConfig()
	c.quick = true
	c.rounds = 1
	c.entities = 1_000
	c.seqSample, c.seqSampleLat = 100, 10
	c.parSample, c.parSampleLat = 200, 50
	c.connRequests = 200
	c.bytesInserts = 20
	c.bigCopy, c.capBulk, c.capSegments = 2_000, 1_000, 5
	c.cliPairs = 1
	c.overheadRounds = 1
	c.benchTime = 20 * time.Millisecond
	c.scenarioTimeout = time.Minute
	return c
}

// bench is one run: the emulator, the latency proxy in front of it, the data
// and the samples taken.
type bench struct {
	cfg    config
	direct string        // Azurite's endpoint
	px     *faults.Proxy // latency proxy in front of Azurite
	via    string        // the proxy's endpoint
	m      meter
	log    func(format string, args ...any)
	items  []workload.Item
	tables atomic.Int64
	prefix string

	res map[string][]sample
	// throttled is the share of requests throttled, per round, of the
	// throughput scenarios.
	throttled map[string][]float64
	// writeRate is the entities a second the proxy accepted from the first
	// accepted request to the last, per round, of the throughput scenarios.
	writeRate map[string][]float64
	// gaveUp counts the rounds of a throughput scenario that ended with
	// the command's retries exhausted (the limiter off), by key.
	gaveUp map[string]int

	cores int     // the machine's cores
	load1 float64 // 1-minute load average when the run started
}

func (b *bench) record(key string, s sample) {
	b.res[key] = append(b.res[key], s)
	extra := ""
	if s.bytes > 0 {
		extra += fmt.Sprintf(", %d bytes in", s.bytes)
	}
	if s.conns > 0 {
		extra += fmt.Sprintf(", %d new conns", s.conns)
	}
	if s.reqs > 0 {
		extra += fmt.Sprintf(", %d requests", s.reqs)
	}
	if s.srv >= 0 {
		extra += fmt.Sprintf(", Azurite CPU %.1f µs/entity", s.perEntity(s.srv))
	}
	if s.sys >= 0 {
		extra += fmt.Sprintf(", machine %.0f%% busy", 100*s.sys)
	}
	b.log("%-28s %8d in %7.2fs: %9.0f/s, client CPU %6.1f µs/entity%s", key, s.n, s.wall.Seconds(), s.rate(), s.perEntity(s.cpu), extra)
}

// want says whether step is to run (-only).
func (b *bench) want(step string) bool { return b.cfg.only == nil || b.cfg.only[step] }

// tableName returns a new table name for this run.
func (b *bench) tableName(kind string) string {
	return fmt.Sprintf("%s%s%d", kind, b.prefix, b.tables.Add(1))
}

func newPrefix() string {
	var r [3]byte
	_, _ = rand.Read(r[:])
	return "x" + hex.EncodeToString(r[:])
}

func (b *bench) createTable(ctx context.Context, name string) error {
	c, err := plainClient(b.direct, name, nil)
	if err != nil {
		return err
	}
	if _, err := c.CreateTable(ctx, nil); err != nil {
		return fmt.Errorf("create table %s: %w", name, err)
	}
	return nil
}

// deleteTable drops a table so that Azurite's memory stays flat.
func (b *bench) deleteTable(ctx context.Context, name string) error {
	c, err := plainClient(b.direct, name, nil)
	if err != nil {
		return err
	}
	if _, err := c.Delete(ctx, nil); err != nil {
		return fmt.Errorf("delete table %s: %w", name, err)
	}
	return nil
}

// verifyCount checks that the table holds want entities, so that no
// scenario is fast because it lost writes.
func (b *bench) verifyCount(ctx context.Context, name string, want int) error {
	n, err := b.countTable(ctx, name)
	if err != nil {
		return err
	}
	if n != want {
		return fmt.Errorf("table %s holds %d entities, want %d", name, n, want)
	}
	return nil
}

// countTable counts the entities of a table (keys only).
func (b *bench) countTable(ctx context.Context, name string) (int, error) {
	c, err := plainClient(b.direct, name, nil)
	if err != nil {
		return 0, err
	}
	sel := "RowKey"
	p := c.NewListEntitiesPager(&aztables.ListEntitiesOptions{Select: &sel})
	n := 0
	for p.More() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return n, fmt.Errorf("count %s: %w", name, err)
		}
		n += len(page.Entities)
	}
	return n, nil
}

// measureAll takes every measurement against the Azurite at endpoint and
// returns the samples, the environment and the client-overhead results:
// what the report and the charts are made of.
func measureAll(ctx context.Context, cfg config, endpoint string, logf func(string, ...any)) (*bench, *envInfo, map[string][]overheadObs, error) {
	endpoint = strings.TrimSuffix(endpoint, "/")
	base, ok := strings.CutSuffix(endpoint, "/"+azurite.Account)
	if !ok {
		return nil, nil, nil, fmt.Errorf("endpoint %q is not an Azurite path-style endpoint", endpoint)
	}
	px, err := faults.Start(base)
	if err != nil {
		return nil, nil, nil, err
	}
	defer px.Close()
	b := &bench{
		cfg:    cfg,
		direct: endpoint,
		px:     px,
		via:    px.Endpoint(azurite.Account),
		log:    logf,
		prefix: newPrefix(),
		res:    map[string][]sample{},

		throttled: map[string][]float64{},
		writeRate: map[string][]float64{},
		gaveUp:    map[string]int{},
	}
	if port := portOf(base); port > 0 {
		b.m.srv = findAzurite(port)
	}
	env := collectEnv(cfg)
	b.cores, b.load1 = runtime.NumCPU(), parseLoad1(env.loadStart)
	start := time.Now()
	b.items = workload.Items(0, cfg.entities)

	over := map[string][]overheadObs{}
	steps := []struct {
		name string
		run  func() error
	}{
		{"overhead", func() (err error) { over, err = b.runOverhead(); return err }},
		{"inserts", func() error { return b.runInserts(ctx, "local", 0) }},
		{"inserts-latency", func() error { return b.runInserts(ctx, "lat", cfg.latency) }},
		{"scans", func() error { return b.runScans(ctx) }},
		{"capacity", func() error { return b.runCapacity(ctx) }},
		{"conns", func() error { return b.runConns(ctx) }},
		{"bytes", func() error { return b.runInsertBytes(ctx) }},
		{"throughput", func() error { return b.runThroughput(ctx) }},
		{"backups", func() error { return b.runBackups(ctx) }},
	}
	for _, st := range steps {
		// The heap and command measurements read the scan table.
		if !b.want(st.name) && (st.name != "scans" || !b.want("heap") && !b.want("cli")) {
			continue
		}
		logf("== %s", st.name)
		if err := st.run(); err != nil {
			return nil, nil, nil, err
		}
	}
	env.finish(time.Since(start))
	return b, env, over, nil
}

func portOf(base string) int {
	i := strings.LastIndexByte(base, ':')
	if i < 0 {
		return 0
	}
	var p int
	_, _ = fmt.Sscanf(base[i+1:], "%d", &p)
	return p
}
