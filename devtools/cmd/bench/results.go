package main

import (
	"fmt"
	"math"
	"runtime"
	"strings"

	"github.com/tablekit/tablekit/devtools/workload"
	"github.com/tablekit/tablekit/table"
)

// med returns the median of f over key's samples, NaN without samples.
func (b *bench) med(key string, f func(sample) float64) float64 {
	ss := b.res[key]
	if len(ss) == 0 {
		return math.NaN()
	}
	return median(mapSamples(ss, f))
}

func (b *bench) rate(key string) float64 { return b.med(key, sample.rate) }

func (b *bench) clientCPU(key string) float64 {
	return b.med(key, func(s sample) float64 { return s.perEntity(s.cpu) })
}

// pairedCPU is the median over runs of num's client CPU per entity
// against den's run of the same index: where each num run follows its den
// run, each ratio compares them on the machine as it was at that
// moment, which a ratio of two medians, each of its own moments, does not
// (a shared machine's cost per instruction drifts within a run). It is the
// ratio of the medians when the two have different numbers of rounds.
func (b *bench) pairedCPU(num, den string) float64 {
	ns, ds := b.res[num], b.res[den]
	if len(ns) == 0 || len(ns) != len(ds) {
		return b.clientCPU(num) / b.clientCPU(den)
	}
	rs := make([]float64, len(ns))
	for i := range ns {
		rs[i] = ns[i].perEntity(ns[i].cpu) / ds[i].perEntity(ds[i].cpu)
	}
	return median(rs)
}

// serverCPU is Azurite's CPU per entity in µs; NaN when unknown.
func (b *bench) serverCPU(key string) float64 {
	return b.med(key, func(s sample) float64 {
		if s.srv < 0 {
			return math.NaN()
		}
		return s.perEntity(s.srv)
	})
}

// jsBusy is the share of the time Azurite's JavaScript thread was busy
// during key's runs: near 1, Azurite is the bottleneck, whatever the client.
func (b *bench) jsBusy(key string) float64 {
	return b.med(key, func(s sample) float64 {
		if s.js < 0 || s.wall <= 0 {
			return math.NaN()
		}
		return s.js.Seconds() / s.wall.Seconds()
	})
}

// sysBusy is the share of all cores that every process on the machine kept
// busy during key's runs.
func (b *bench) sysBusy(key string) float64 {
	return b.med(key, func(s sample) float64 {
		if s.sys < 0 {
			return math.NaN()
		}
		return s.sys
	})
}

// allSysBusy is the median machine load over every timed run.
func (b *bench) allSysBusy() float64 {
	var xs []float64
	for _, ss := range b.res {
		for _, s := range ss {
			if s.sys >= 0 {
				xs = append(xs, s.sys)
			}
		}
	}
	if len(xs) == 0 {
		return math.NaN()
	}
	return median(xs)
}

func (b *bench) ratio(num, den string) float64 { return b.rate(num) / b.rate(den) }

// spread is the lowest and highest rate of ss (at least one sample).
func spread(ss []sample) (lo, hi float64) {
	rates := mapSamples(ss, sample.rate)
	lo, hi = rates[0], rates[0]
	for _, x := range rates {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}

// trow is a row of a throughput table.
type trow struct {
	key, label string
}

// throughputTable renders rows with their median rate, the spread over
// rounds, the ratio to each baseline, and CPU per entity.
func (b *bench) throughputTable(caption string, rows []trow, baselines []trow, viaProxy bool) Table {
	h := []string{"Scenario", "entities per round", "entities/s (median)", "rounds (min-max)"}
	for _, bl := range baselines {
		h = append(h, "vs "+bl.label)
	}
	cpuCol := "client CPU µs/entity"
	if viaProxy {
		cpuCol += " (incl. proxy)"
	}
	h = append(h, cpuCol, "Azurite CPU µs/entity", "Azurite thread busy", "machine busy", "other work")
	t := Table{Caption: caption, Header: h}
	for _, r := range rows {
		ss := b.res[r.key]
		if len(ss) == 0 {
			continue
		}
		lo, hi := spread(ss)
		row := []string{r.label, fmtInt(ss[0].n), fmtNum(b.rate(r.key)), fmtNum(lo) + "-" + fmtNum(hi)}
		for _, bl := range baselines {
			if bl.key == r.key {
				row = append(row, "1.00x")
			} else {
				row = append(row, fmtRatio(b.ratio(r.key, bl.key)))
			}
		}
		row = append(row, fmtNum(b.clientCPU(r.key)), fmtNum(b.serverCPU(r.key)), pct(b.jsBusy(r.key)), pct(b.sysBusy(r.key)), pct(b.otherWork(r.key)))
		t.Rows = append(t.Rows, row)
	}
	return t
}

// report assembles BENCHMARKS.md from the samples.
func (b *bench) report(env *envInfo, over map[string][]overheadObs) *Report {
	cfg := b.cfg
	r := &Report{Title: "Benchmarks"}
	mode := ""
	if cfg.quick {
		mode = " **Quick smoke run (-quick): tiny counts and one round; the numbers mean nothing.**"
	}
	r.Intro = []string{
		"This file is written by `make bench` (`go run ./devtools/cmd/bench -out BENCHMARKS.md`); do not edit it by hand." + mode,
		"Every number below comes from one run on the machine described under Environment: tablekit and plain " +
			"`aztables` code side by side against the same freshly started Azurite, so the ratios compare like with " +
			"like even where absolute rates are those of a small, shared machine. Azurite is an emulator: its rates are " +
			"not the service's, and on this machine it shares 2 cores with the client. Read the ratios, and the Azurite " +
			"columns to see who was the bottleneck: Azurite runs every request on one JavaScript thread, and where " +
			"\"Azurite thread busy\" nears 100% a client can only go faster by asking less of Azurite per entity.",
	}
	r.Env = [][2]string{
		{"Date", env.date.Format("2006-01-02 15:04 MST")},
		{"Command", "`" + env.command + "`"},
		{"Duration of the run", fmt.Sprintf("%.0f s", env.duration.Seconds())},
		{"Go", env.goVersion + ", " + env.platform},
		{"CPU", fmt.Sprintf("%d cores (GOMAXPROCS %d), %s", env.cores, env.maxProcs, env.cpuModel)},
		{"Memory", env.memory},
		{"Azurite", env.azurite + " (in memory, on 127.0.0.1), Node.js " + env.node},
		{"aztables / azcore", env.aztables + " / " + env.azcore},
		{"Load average at start / end", env.loadStart + " / " + env.loadEnd},
		{"Machine CPU busy during timed runs", pct(b.allSysBusy()) + " of all cores (median over runs, every process: this one, Azurite and anything else on the machine)"},
		{"Rounds", fmt.Sprintf("%d per scenario (medians reported); client-overhead benchmarks: %s each", cfg.rounds, plural(cfg.overheadRounds, "run"))},
	}
	r.Method = b.method()

	r.Targets = b.targets(over)
	r.Sections = append(r.Sections, b.insertSection(), b.scanSection(), b.cliSection(), b.capacitySection(), b.connSection(), b.bytesSection(), b.throughputSection(), overheadSection(over), b.azuriteSection())
	r.Sections = append(r.Sections, b.backupSection())
	return r
}

func (b *bench) insertSection() Section {
	cfg := b.cfg
	rows := func(lat string) []trow {
		return []trow{
			{"insert/plain-seq/" + lat, "plain `AddEntity`, sequential"},
			{"insert/plain-par/" + lat, fmt.Sprintf("plain `AddEntity`, %d goroutines, default transport", cfg.parWorkers)},
			{"insert/plain-txn/" + lat, fmt.Sprintf("hand-written `SubmitTransaction` loop (%d ops, %d goroutines)", cfg.txnOps, cfg.txnWorkers)},
			{"insert/tk-bulk/" + lat, "tablekit bulk writer (`batch.Write`, defaults)"},
		}
	}
	bl := func(lat string) []trow {
		return []trow{{"insert/plain-seq/" + lat, "sequential"}, {"insert/plain-txn/" + lat, "transactions"}}
	}
	return Section{
		Title: fmt.Sprintf("Bulk insert: %s entities over %d partitions", fmtInt(cfg.entities), workload.Partitions),
		Text: []string{
			"The hand-written transaction loop groups entities by PartitionKey, cuts groups into transactions of 100 and submits them from 4 goroutines (errgroup) with upserts that replace (`TransactionTypeInsertReplace`), the same operation as the bulk writer's default, so both ask the same work of Azurite. The bulk writer runs with its defaults (4 transactions in flight, upsert-replace, per-chunk retries).",
		},
		Tables: []Table{
			b.throughputTable("Local (no added latency):", rows("local"), bl("local"), false),
			b.throughputTable(fmt.Sprintf("With %s added to every request:", fmtDur(cfg.latency)), rows("lat"), bl("lat"), true),
		},
	}
}

func (b *bench) scanSection() Section {
	cfg := b.cfg
	rows := func(lat string) []trow {
		return []trow{
			{"scan/plain-seq/" + lat, "plain aztables pager, sequential"},
			{"scan/tk-seq/" + lat, "tablekit sequential iterator"},
			{"scan/tk-par/" + lat, fmt.Sprintf("tablekit parallel segmented query (%d segments, %d in flight)", workload.Partitions, cfg.scanParallel)},
			{"scan/plain-fan/" + lat, fmt.Sprintf("hand-written errgroup fan-out over aztables pagers (%d in flight)", cfg.scanParallel)},
		}
	}
	bl := func(lat string) []trow {
		return []trow{{"scan/plain-seq/" + lat, "plain pager"}, {"scan/plain-fan/" + lat, "fan-out"}}
	}
	proj := Table{
		Caption: fmt.Sprintf("Projection: the tablekit iterator reading all %s entities with all 10 properties, and with `Select(%q, %q)`; bytes received counted on the wire (status lines, headers and bodies) by a counting dialer under tablekit's transport, locally:", fmtInt(cfg.entities), workload.Projection[0], workload.Projection[1]),
		Header:  []string{"Scenario", "bytes received per entity", "response bodies per entity", "entities/s (median)", "client CPU µs/entity", "Azurite CPU µs/entity"},
	}
	for _, pr := range []trow{{"scan/tk-all/proj", "all 10 properties"}, {"scan/tk-select/proj", "2 of 10 properties (`$select`)"}} {
		if len(b.res[pr.key]) == 0 {
			continue
		}
		proj.Rows = append(proj.Rows, []string{
			pr.label,
			fmtNum(b.med(pr.key, func(s sample) float64 { return float64(s.bytes) / float64(s.n) })),
			fmtNum(b.med(pr.key, func(s sample) float64 { return float64(s.body) / float64(s.n) })),
			fmtNum(b.rate(pr.key)), fmtNum(b.clientCPU(pr.key)), fmtNum(b.serverCPU(pr.key)),
		})
	}
	return Section{
		Title: fmt.Sprintf("Scan: %s entities (%d partitions of %s)", fmtInt(cfg.entities), workload.Partitions, fmtInt(cfg.entities/workload.Partitions)),
		Text: []string{
			fmt.Sprintf("Every scan reads and decodes the whole table with the service's default page size (1,000). The parallel scans split the table into one segment per partition and keep %d requests in flight; the hand-written fan-out does the same with `errgroup.SetLimit(%d)`, one aztables pager per partition, decoding in its workers. Plain code decodes into a struct with encoding/json (cheaper than `aztables.EDMEntity`, see client overhead), tablekit into the typed struct.", cfg.scanParallel, cfg.scanParallel),
		},
		Tables: []Table{
			b.throughputTable("Local (no added latency):", rows("local"), bl("local"), false),
			b.throughputTable(fmt.Sprintf("With %s added to every request:", fmtDur(cfg.latency)), rows("lat"), bl("lat"), true),
			b.throughputTable(fmt.Sprintf("With %s added to every request:", fmtDur(cfg.latencyHigh)), rows("high"), bl("high")[:1], true),
			proj,
		},
	}
}

func (b *bench) connSection() Section {
	cfg := b.cfg
	var tables []Table
	for _, pat := range []struct{ key, caption string }{
		{"steady", fmt.Sprintf("Steady: %d goroutines doing %s point gets in total, each starting its next get as soon as one ends:", cfg.connWorkers, fmtInt(cfg.connRequests))},
		{"burst", fmt.Sprintf("Bursts: %s point gets in bursts of %d at once, each burst waiting for all of its gets (a handler fanning out per incoming request):", fmtInt(cfg.connRequests), cfg.connWorkers)},
	} {
		t := Table{
			Caption: pat.caption,
			Header:  []string{"Transport", "idle connections kept per host", "new TCP connections (median)", "each round", "gets/s (median)", "client CPU µs/get"},
		}
		for _, v := range []struct{ key, label, idle string }{
			{"conns/go-default", "Go's `http.DefaultTransport` (in aztables `ClientOptions.Transport`)", "2"},
			{"conns/az-default", "aztables default (azcore's default transport, nil options)", "10"},
			{"conns/tk", "tablekit tuned transport (`table.Options` defaults)", fmt.Sprint(table.DefaultPoolSize)},
		} {
			key := v.key + "/" + pat.key
			ss := b.res[key]
			if len(ss) == 0 {
				continue
			}
			var each []string
			for _, s := range ss {
				each = append(each, fmtInt(s.conns))
			}
			t.Rows = append(t.Rows, []string{v.label, v.idle,
				fmtNum(b.med(key, func(s sample) float64 { return float64(s.conns) })),
				strings.Join(each, ", "), fmtNum(b.rate(key)), fmtNum(b.clientCPU(key))})
		}
		tables = append(tables, t)
	}
	return Section{
		Title: "Connections under parallel load",
		Text: []string{
			"Every run goes through a fresh proxy that counts the TCP connections the client opens. A pool that keeps fewer idle connections than there are concurrent requests closes connections whenever more than that many are idle at once, and dials new ones for the next requests: churn, each new connection costing a round trip and, against the real service, a TLS handshake. Requests that follow each other without pause hand connections straight on, so churn shows most when requests come in bursts.",
		},
		Tables: tables,
	}
}

func (b *bench) bytesSection() Section {
	t := Table{
		Caption: fmt.Sprintf("%s sequential inserts each, counted on the wire by a counting dialer:", fmtInt(min(b.cfg.bytesInserts, b.cfg.entities))),
		Header:  []string{"Insert", "bytes received per insert", "of which response body", "vs plain"},
	}
	plain := b.med("bytes/plain", func(s sample) float64 { return float64(s.bytes) / float64(s.n) })
	for _, v := range []trow{{"bytes/plain", "plain `AddEntity` (the service echoes the entity: 201 with body)"}, {"bytes/tk", "tablekit `Table.Add` (`Prefer: return-no-content`: 204)"}} {
		if len(b.res[v.key]) == 0 {
			continue
		}
		got := b.med(v.key, func(s sample) float64 { return float64(s.bytes) / float64(s.n) })
		t.Rows = append(t.Rows, []string{v.label, fmtNum(got),
			fmtNum(b.med(v.key, func(s sample) float64 { return float64(s.body) / float64(s.n) })),
			fmt.Sprintf("%.0f%%", 100*got/plain)})
	}
	return Section{Title: "Bytes received per insert", Tables: []Table{t}}
}

func overheadSection(over map[string][]overheadObs) Section {
	row := func(bb workload.Bench, base string) []string {
		obs := over[bb.Name]
		if len(obs) == 0 {
			return nil
		}
		cpu := median(mapObs(obs, func(o overheadObs) float64 { return o.cpuNs }))
		r := []string{bb.Desc, fmtNum(cpu), fmtNum(median(mapObs(obs, func(o overheadObs) float64 { return o.wallNs }))),
			fmtNum(median(mapObs(obs, func(o overheadObs) float64 { return o.allocs }))),
			fmtNum(median(mapObs(obs, func(o overheadObs) float64 { return o.bytes })))}
		if base != "" {
			r = append(r, fmtRatio(cpu/overCPU(over, base)))
		}
		return r
	}
	w := Table{
		Caption: "Writes: one insert per operation, through the whole aztables/azcore pipeline (shared-key signing, retry policy, tracing, body download) to the in-process service. The service answers 204 (no echo) to every path except the last, which uses aztables' defaults:",
		Header:  []string{"Write path", "CPU ns/entity", "wall ns/entity", "allocs/entity", "bytes allocated/entity", "CPU vs pre-built bytes"},
	}
	d := Table{
		Caption: fmt.Sprintf("Reads: decoding each entity of a %s-entity page as aztables' pager hands it over (`[][]byte`):", fmtNum(workload.PageSize)),
		Header:  []string{"Decode path", "CPU ns/entity", "wall ns/entity", "allocs/entity", "bytes allocated/entity", "CPU vs EDMEntity"},
	}
	pg := Table{
		Caption: fmt.Sprintf("Whole pages: reading a %s-entity page through the client from the in-process service. aztables' pager decodes the response into maps and encodes every entity back to JSON before the caller sees it; tablekit sends its own request and its iterator decodes the downloaded body itself:", fmtNum(workload.PageSize)),
		Header:  []string{"Read path", "CPU ns/entity", "wall ns/entity", "allocs/entity", "bytes allocated/entity", "CPU vs plain scan path"},
	}
	tx := Table{
		Caption: fmt.Sprintf("Transactions: one %d-operation entity group transaction of upserts per operation, answered with a 202 and one 204 part per operation:", workload.TxOps),
		Header:  []string{"Transaction path", "CPU ns/entity", "wall ns/entity", "allocs/entity", "bytes allocated/entity", "CPU vs pre-built bytes"},
	}
	enc := Table{
		Caption: fmt.Sprintf("Encoding each entity of the %s-entity page for a write, typed and as the raw entity an import writes (`table.RawEntity`: its properties copied as they came, each value checked against its type on the way):", fmtNum(workload.PageSize)),
		Header:  []string{"Encode path", "CPU ns/entity", "wall ns/entity", "allocs/entity", "bytes allocated/entity", "CPU vs typed"},
	}
	for _, bb := range workload.Benchmarks() {
		switch {
		case strings.HasPrefix(bb.Name, "encode/"):
			if rr := row(bb, "encode/typed"); rr != nil {
				enc.Rows = append(enc.Rows, rr)
			}
		case strings.HasPrefix(bb.Name, "tx/"):
			if rr := row(bb, "tx/prebuilt"); rr != nil {
				tx.Rows = append(tx.Rows, rr)
			}
		case strings.HasPrefix(bb.Name, "write/"):
			if rr := row(bb, "write/prebuilt"); rr != nil {
				w.Rows = append(w.Rows, rr)
			}
		case strings.HasPrefix(bb.Name, "decode/"):
			if rr := row(bb, "decode/edm"); rr != nil {
				d.Rows = append(d.Rows, rr)
			}
		default:
			if rr := row(bb, "page/pager-struct"); rr != nil {
				pg.Rows = append(pg.Rows, rr)
			}
		}
	}
	return Section{
		Title: "Client overhead without a server",
		Text: []string{
			"Go benchmarks in `devtools/workload` (`go test -run '^$' -bench . -benchmem ./devtools/workload` runs the same functions) with an in-process `policy.Transporter` that answers like the service, so only the client's work is measured. CPU is this process's CPU time per entity (all threads: the garbage collector's work counts, which wall time per operation hides on a 2-core machine); medians over the repetitions.",
		},
		Tables: []Table{w, d, enc, pg, tx},
	}
}

func mapObs(obs []overheadObs, f func(overheadObs) float64) []float64 {
	out := make([]float64, len(obs))
	for i, o := range obs {
		out[i] = f(o)
	}
	return out
}

func overCPU(over map[string][]overheadObs, name string) float64 {
	obs := over[name]
	if len(obs) == 0 {
		return math.NaN()
	}
	return median(mapObs(obs, func(o overheadObs) float64 { return o.cpuNs }))
}

func overAllocs(over map[string][]overheadObs, name string) float64 {
	obs := over[name]
	if len(obs) == 0 {
		return math.NaN()
	}
	return median(mapObs(obs, func(o overheadObs) float64 { return o.allocs }))
}

// pageCPU is Azurite's CPU per 1,000-entity page in ms, from the local
// sequential pager.
func (b *bench) pageCPU() float64 {
	return b.serverCPU("scan/plain-seq/local") // µs/entity = ms per 1,000 entities
}

func (b *bench) azuriteSection() Section {
	text := []string{
		fmt.Sprintf("Azurite is a single Node.js process that handles requests on one thread. Serving one 1,000-entity page of these entities costs it **%s ms of CPU** (median, local sequential scan): tens of milliseconds. Plain code spends another %s ms of client CPU on the same page, most of it inside aztables' pager, which decodes every response into maps and encodes each entity back to JSON before the caller sees it; tablekit's iterator decodes the downloaded body itself and spends %s ms (see the whole-page rows under client overhead). On this %d-core machine the two processes share the cores, so once latency is hidden the scans are bound by CPU: however many requests are in flight, a page cannot come faster than max(Azurite's time, (Azurite's + the client's time) / %d). That caps the parallel-versus-sequential scan ratios at %s and %s added latency far below what the same code gets from the service, which serves partitions from many servers. Inserts are alike: in 100-operation transactions an entity costs Azurite %s µs of CPU and the client %s µs.",
			fmtNum(b.pageCPU()), fmtNum(b.clientCPU("scan/plain-seq/local")), fmtNum(b.clientCPU("scan/tk-seq/local")), runtime.NumCPU(), runtime.NumCPU(),
			fmtDur(b.cfg.latency), fmtDur(b.cfg.latencyHigh),
			fmtNum(b.serverCPU("insert/plain-txn/local")), fmtNum(b.clientCPU("insert/plain-txn/local"))),
	}
	return Section{Title: "Why Azurite on 2 cores caps the parallel ratios", Text: text}
}
