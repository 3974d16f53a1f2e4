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

// entityKeys checks the keys given on the command line.
func entityKeys(pk, rk string) error {
	for _, k := range []struct{ name, v string }{{"PARTITIONKEY", pk}, {"ROWKEY", rk}} {
		if bad := wire.CheckKey(k.v); bad != nil {
			return usagef("%s %q: %s", k.name, k.v, bad)
		}
	}
	return nil
}

func runGet(ctx context.Context, e *env, args []string) error {
	conn, pos, err := tableArgs(e, commands["get"], args, 3, 3, nil)
	if err != nil {
		return err
	}
	if err := entityKeys(pos[1], pos[2]); err != nil {
		return err
	}
	t, err := table.New[table.Entity](conn.svc, pos[0])
	if err != nil {
		return err
	}
	ent, err := t.Get(ctx, pos[1], pos[2], nil)
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
	conn, pos, err := tableArgs(e, commands["rm"], args, 3, 3, func(fs *flag.FlagSet) {
		fs.StringVar(&ifMatch, "if-match", "", "delete only if the stored entity has this ETag (from tablekit get)")
	})
	if err != nil {
		return err
	}
	if err := entityKeys(pos[1], pos[2]); err != nil {
		return err
	}
	t, err := table.New[table.Entity](conn.svc, pos[0])
	if err != nil {
		return err
	}
	etag := table.AnyETag
	if ifMatch != "" {
		etag = azcore.ETag(ifMatch)
	}
	if err := t.Delete(ctx, pos[1], pos[2], etag); err != nil {
		return fmt.Errorf("%q, %q: %w", pos[1], pos[2], writeOutcome(err))
	}
	return nil
}
