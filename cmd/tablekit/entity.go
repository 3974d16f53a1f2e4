package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/table"
)

func init() {
	register(&command{
		name: "get", args: "TABLE PARTITIONKEY ROWKEY",
		summary: "print one entity as a JSON line, with its ETag and EDM annotations",
		example: `tablekit get orders alice 0001
tablekit get orders alice 0001 > e.jsonl   # edit, then: tablekit put orders e.jsonl --if-match ETAG`,
		run: runGet,
	})
	register(&command{
		name: "put", args: "TABLE [FILE|-] [--merge] [--if-match ETAG]",
		summary: "write entities from JSON lines, one request each: replace by default, --merge, or --if-match ETAG to change only an unchanged entity",
		example: `echo '{"PartitionKey":"alice","RowKey":"0001","Total@odata.type":"Edm.Double","Total":12.5}' | tablekit put orders
tablekit put orders e.jsonl --merge
tablekit put orders e.jsonl --if-match 'W/"datetime''2024-05-01T10%3A00%3A00.1234567Z''"'`,
		run: runPut,
	})
	register(&command{
		name: "rm", args: "TABLE PARTITIONKEY ROWKEY [--if-match ETAG]",
		summary: "delete one entity (only an unchanged one with --if-match)",
		example: `tablekit rm orders alice 0001
tablekit rm orders alice 0001 --if-match "$ETAG"`,
		run: runRm,
	})
}

// maxPut bounds put's input: put checks every line before it writes any
// and sends one request per entity; import is the command for more.
const maxPut = 1000

// entityArgs reads the arguments TABLE PK RK of command c (its own flags
// from extra), checks the keys and opens the table.
func entityArgs(e *env, c *command, args []string, extra func(*flag.FlagSet)) (t *table.Table[table.Entity], pk, rk string, err error) {
	conn, pos, err := tableArgs(e, c, args, 3, 3, extra)
	if err != nil {
		return nil, "", "", err
	}
	for _, k := range []struct{ name, v string }{{"PARTITIONKEY", pos[1]}, {"ROWKEY", pos[2]}} {
		if bad := wire.CheckKey(k.v); bad != nil {
			return nil, "", "", usagef("%s %q: %s", k.name, k.v, bad)
		}
	}
	t, err = table.New[table.Entity](conn.svc, pos[0])
	return t, pos[1], pos[2], err
}

func runGet(ctx context.Context, e *env, args []string) error {
	t, pk, rk, err := entityArgs(e, commands["get"], args, nil)
	if err != nil {
		return err
	}
	ent, err := t.Get(ctx, pk, rk, nil)
	if err != nil {
		return err
	}
	var w lineWriter
	b, err := w.line(ent)
	if err != nil {
		return err
	}
	_, err = e.stdout.Write(withETag(b, ent.ETag))
	return err
}

// withETag puts "odata.etag" first in an entity's JSON line, as the
// service writes it; import and put read the line back and ignore it.
func withETag(line []byte, etag azcore.ETag) []byte {
	if etag == "" {
		return line
	}
	b := append([]byte(`{"odata.etag":`), wire.AppendString(nil, string(etag))...)
	b = append(b, ',')
	return append(b, line[1:]...)
}

func runPut(ctx context.Context, e *env, args []string) error {
	var merge bool
	var ifMatch string
	conn, pos, err := tableArgs(e, commands["put"], args, 1, 2, func(fs *flag.FlagSet) {
		fs.BoolVar(&merge, "merge", false, "merge the properties into the stored entity instead of replacing it")
		fs.StringVar(&ifMatch, "if-match", "", "write only if the stored entity has this ETag (from tablekit get); * for any existing entity; then the input holds one entity")
	})
	if err != nil {
		return err
	}
	path := "-"
	if len(pos) == 2 {
		path = pos[1]
	}
	t, err := table.New[table.Entity](conn.svc, pos[0])
	if err != nil {
		return err
	}
	ents, err := readPut(t, path)
	if err != nil {
		return err
	}
	if ifMatch != "" && len(ents) != 1 {
		return usagef("--if-match is the ETag of one entity: the input holds %d", len(ents))
	}
	mode := table.Replace
	if merge {
		mode = table.Merge
	}
	for i, it := range ents {
		var res table.Meta
		if ifMatch != "" {
			res, err = t.Update(ctx, it.ent, mode, azcore.ETag(ifMatch))
		} else {
			res, err = t.Upsert(ctx, it.ent, mode)
		}
		if err != nil {
			err = fmt.Errorf("line %d (%q, %q): %w", it.line, it.ent.PartitionKey, it.ent.RowKey, writeOutcome(err))
			if i > 0 {
				err = fmt.Errorf("%w; the %d entities before it were written", err, i)
			}
			return err
		}
		b := []byte(`{"PartitionKey":`)
		b = wire.AppendString(b, it.ent.PartitionKey)
		b = append(b, `,"RowKey":`...)
		b = wire.AppendString(b, it.ent.RowKey)
		b = append(b, `,"odata.etag":`...)
		b = append(wire.AppendString(b, string(res.ETag)), "}\n"...)
		if _, err := e.stdout.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// readPut reads and checks every entity of put's input before anything is
// written: a bad line is a usage error, and nothing is sent.
func readPut(t *dynTable, path string) ([]item, error) {
	var in io.Reader = os.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, usagef("%v", err)
		}
		defer f.Close()
		in = f
	}
	next := jsonlRecords(t, in)
	var ents []item
	for {
		rec, err := next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if rec.rej != nil {
			return nil, usagef("%s line %d: %s (nothing was written)", path, rec.line, rec.rej.Reason)
		}
		if len(ents) == maxPut {
			return nil, usagef("%s holds more than %d entities: put sends one request each; use tablekit import", path, maxPut)
		}
		rec.ent.text = nil
		ents = append(ents, *rec.ent)
	}
	if len(ents) == 0 {
		return nil, usagef("%s holds no entity: want JSON lines, one entity each", path)
	}
	return ents, nil
}

func runRm(ctx context.Context, e *env, args []string) error {
	var ifMatch string
	t, pk, rk, err := entityArgs(e, commands["rm"], args, func(fs *flag.FlagSet) {
		fs.StringVar(&ifMatch, "if-match", "", "delete only if the stored entity has this ETag (from tablekit get)")
	})
	if err != nil {
		return err
	}
	etag := table.AnyETag
	if ifMatch != "" {
		etag = azcore.ETag(ifMatch)
	}
	if err := t.Delete(ctx, pk, rk, etag); err != nil {
		return fmt.Errorf("%q, %q: %w", pk, rk, writeOutcome(err))
	}
	return nil
}
