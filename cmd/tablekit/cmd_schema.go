package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/tablekit/tablekit/query"
	"github.com/tablekit/tablekit/table"
)

func init() {
	register(&command{
		name: "schema", args: "TABLE [--sample N] [--format text|json] [--partition PK] [--prefix P] [--parallel N]",
		summary: "the table's shape: properties with their EDM types and counts, entity sizes, partitions, key patterns",
		example: `tablekit schema orders                    # the whole table, with a parallel scan
tablekit schema orders --sample 1000      # a quick look at about 1,000 entities
tablekit schema orders --partition alice --format json | jq .properties`,
		run: runJob(schemaJob),
	})
}

// shownPatterns is how many key patterns schema prints per key.
const shownPatterns = 5

func schemaJob() *jobCommand {
	var sample int
	var format string
	return &jobCommand{name: "schema", args: 1, tables: 1,
		flags: func(fs *flag.FlagSet, in *jobInput) {
			fs.StringVar(&in.sf.partition, "partition", "", "only this PartitionKey")
			fs.StringVar(&in.sf.prefix, "prefix", "", "only PartitionKeys starting with this (RowKeys with --partition)")
			fs.IntVar(&in.sf.parallel, "parallel", query.DefaultParallelism, fmt.Sprintf("requests in flight, 1 to %d", query.MaxParallelism))
			fs.IntVar(&sample, "sample", 0, "read about N entities, spread over the scan's segments, for a quick look; 0: every entity")
			fs.StringVar(&format, "format", "text", "text (for reading) or json")
		},
		check: func(*jobInput) error {
			if format != "text" && format != "json" {
				return usagef("--format %q: want text or json", format)
			}
			if sample < 0 {
				return usagef("--sample %d: want 0 (every entity) or more", sample)
			}
			return nil
		},
		build: func(ctx context.Context, in *jobInput) (*jobRun, error) {
			j, plan, err := in.startScan(ctx)
			if err != nil {
				return nil, err
			}
			name, svc := in.pos[0], in.src.svc
			raw, err := table.New[table.RawEntity](svc, name)
			if err != nil {
				return nil, err
			}
			dyn, err := table.New[table.Entity](svc, name)
			if err != nil {
				return nil, err
			}
			q := query.New(raw)
			if sample > 0 {
				q = q.Limit(sample)
			}
			src := &scanSource{svc, &plan}
			var sh *shape
			dst := &tallySink[table.RawEntity]{src: src, q: q,
				begin: func() {
					var bounds []string
					if plan.split == query.PartitionKey {
						bounds = plan.bounds
					}
					sh = newShape(svc.Backend() != table.CosmosDB, bounds)
				},
				each:   func(ent table.RawEntity) error { return sh.addRaw(dyn, ent) },
				report: func(*job) error { return printSchema(in.e, sh, name, sample > 0, format) }}
			return &jobRun{job: j, retries: in.retries, src: src, dst: dst}, nil
		}}
}

// printSchema prints what the run found, in the --format asked for.
func printSchema(e *env, sh *shape, name string, sample bool, format string) error {
	rep := sh.report(name, sample)
	if format == "json" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err == nil {
			_, err = fmt.Fprintf(e.stdout, "%s\n", b)
		}
		return err
	}
	return rep.print(e.stdout)
}

// schemaReport is schema's output; --format json prints it as it is.
type schemaReport struct {
	Table      string       `json:"table"`
	Sample     bool         `json:"sample"` // --sample: only some of the entities were read
	Entities   int64        `json:"entities"`
	Properties []propReport `json:"properties"`
	Size       struct {
		Min     int       `json:"min"`
		Median  int       `json:"median"`
		Max     int       `json:"max"`
		Largest [2]string `json:"largest"` // the PartitionKey and RowKey of an entity of Max
	} `json:"size"`
	Partitions struct {
		Count   int64       `json:"count"`
		Exact   bool        `json:"exact"` // false: at least Count (Cosmos DB, very many partitions)
		Biggest []partCount `json:"biggest"`
	} `json:"partitions"`
	PartitionKey keyReport `json:"partitionKey"`
	RowKey       keyReport `json:"rowKey"`
}

type propReport struct {
	Name     string           `json:"name"`
	Types    map[string]int64 `json:"types"` // entities by EDM type (Edm.String, ...)
	Entities int64            `json:"entities"`
	Absent   int64            `json:"absent"`
}

type keyReport struct {
	MinLength int            `json:"minLength"` // in characters
	MaxLength int            `json:"maxLength"`
	Patterns  []patternCount `json:"patterns"` // the most frequent, most first
	Other     int64          `json:"other"`    // entities whose key has none of the patterns counted
}

func (s *shape) report(name string, sample bool) *schemaReport {
	r := &schemaReport{Table: name, Sample: sample, Entities: s.entities, Properties: []propReport{}}
	for n, types := range s.props {
		p := propReport{Name: n, Types: map[string]int64{}}
		for t, c := range types {
			p.Types["Edm."+t] = c
			p.Entities += c
		}
		p.Absent = s.entities - p.Entities
		r.Properties = append(r.Properties, p)
	}
	slices.SortFunc(r.Properties, func(a, b propReport) int { return strings.Compare(a.Name, b.Name) })
	if s.entities > 0 {
		r.Size.Min, r.Size.Median, r.Size.Max, r.Size.Largest = s.minSize, s.median(), s.maxSize, s.largest
	}
	r.Partitions.Count, r.Partitions.Exact, r.Partitions.Biggest = s.parts.result()
	if r.Partitions.Biggest == nil {
		r.Partitions.Biggest = []partCount{}
	}
	for _, k := range []struct {
		rep   *keyReport
		shape *keyShape
	}{{&r.PartitionKey, &s.pk}, {&r.RowKey, &s.rk}} {
		*k.rep = keyReport{MinLength: k.shape.minLen, MaxLength: k.shape.maxLen, Patterns: k.shape.top(shownPatterns), Other: k.shape.other}
		for _, p := range k.shape.top(len(k.shape.patterns))[len(k.rep.Patterns):] {
			k.rep.Other += p.Entities
		}
	}
	return r
}

// print writes the report for reading.
func (r *schemaReport) print(w io.Writer) error {
	what := "every entity"
	if r.Sample {
		what = "a sample"
	}
	fmt.Fprintf(w, "table %s: %d entities read (%s)\n", r.Table, r.Entities, what)
	if r.Entities == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nproperties (entities that have each, by EDM type; absent: entities without it)\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, p := range r.Properties {
		var types []string
		for _, t := range edmTypes {
			if c, ok := p.Types["Edm."+t]; ok {
				types = append(types, fmt.Sprintf("Edm.%s %d", t, c))
			}
		}
		fmt.Fprintf(tw, "  %s\t%s\tabsent %d\n", cell(p.Name), strings.Join(types, ", "), p.Absent)
	}
	tw.Flush()
	fmt.Fprintf(w, "\nentity size (bytes of its keys and properties' JSON): min %d, median %d, max %d (%q, %q)\n",
		r.Size.Min, r.Size.Median, r.Size.Max, r.Size.Largest[0], r.Size.Largest[1])
	count := fmt.Sprint(r.Partitions.Count)
	if !r.Partitions.Exact {
		count = fmt.Sprintf("at least %d (without key order, only %d are counted one by one)", r.Partitions.Count, maxPartitionsHeld)
	}
	fmt.Fprintf(w, "\npartitions: %s; the biggest:\n", count)
	for _, p := range r.Partitions.Biggest {
		fmt.Fprintf(w, "  %q %d\n", p.PartitionKey, p.Entities)
	}
	for _, k := range []struct {
		name string
		rep  keyReport
	}{{"PartitionKey", r.PartitionKey}, {"RowKey", r.RowKey}} {
		fmt.Fprintf(w, "\n%s: %d to %d characters; patterns (entities):\n", k.name, k.rep.MinLength, k.rep.MaxLength)
		for _, p := range k.rep.Patterns {
			fmt.Fprintf(w, "  %s %d\n", p.Pattern, p.Entities)
		}
		if k.rep.Other > 0 {
			fmt.Fprintf(w, "  (other patterns) %d\n", k.rep.Other)
		}
	}
	return nil
}
