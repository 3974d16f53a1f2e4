package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"

	"github.com/tablekit/tablekit"
	"github.com/tablekit/tablekit/internal/wire"
	"github.com/tablekit/tablekit/table"
)

func init() {
	register(&command{
		name: "get", args: "TABLE PARTITIONKEY ROWKEY [--select a,b]",
		summary: "print one entity as a JSON line, with its ETag and EDM annotations",
		example: `tablekit get orders alice 0001
tablekit get orders alice 0001 --select Total,Placed
tablekit get orders alice 0001 > e.jsonl   # edit, then: tablekit put orders e.jsonl --if-match ETAG`,
		run: runGet,
	})
	register(&command{
		name: "put", args: "TABLE [FILE|-|NAME=VALUE...] [--merge] [--if-match ETAG] [--if-not-exists]",
		summary: "write entities from JSON lines, or one from NAME=VALUE arguments (strings unless NAME@odata.type=Edm.X types them), one request each: replace by default, --merge, --if-match ETAG to change only an unchanged entity, or --if-not-exists to insert only",
		example: `echo '{"PartitionKey":"alice","RowKey":"0001","Total@odata.type":"Edm.Double","Total":12.5}' | tablekit put orders
tablekit put orders PartitionKey=alice RowKey=0002 Total=12.5 Total@odata.type=Edm.Double Note='gift wrap'
tablekit put orders PartitionKey=alice RowKey=0003 Qty=2 Qty@odata.type=Edm.Int32 --if-not-exists
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
	var sel string
	t, pk, rk, err := entityArgs(e, commands["get"], args, func(fs *flag.FlagSet) {
		fs.StringVar(&sel, "select", "", selectHelp)
	})
	if err != nil {
		return err
	}
	var o *table.GetOptions
	if sel != "" {
		names, err := selectNames(sel)
		if err != nil {
			return err
		}
		o = &table.GetOptions{Select: withTimestamp(names)}
	}
	ent, err := t.Get(ctx, pk, rk, o)
	if err != nil {
		return err
	}
	w := lineWriter{t: t}
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
	var merge, ifNotExists bool
	var ifMatch string
	conn, pos, err := tableArgs(e, commands["put"], args, 1, 1+maxProps, func(fs *flag.FlagSet) {
		fs.BoolVar(&merge, "merge", false, "merge the properties into the stored entity instead of replacing it")
		fs.StringVar(&ifMatch, "if-match", "", "write only if the stored entity has this ETag (from tablekit get); * for any existing entity; then the input holds one entity")
		fs.BoolVar(&ifNotExists, "if-not-exists", false, "insert only: an entity with the same keys is left as it is, and the exit status is 4 (az's --if-exists fail)")
	})
	if err != nil {
		return err
	}
	switch {
	case ifNotExists && ifMatch != "":
		return usagef("--if-not-exists inserts, --if-match updates a stored entity: give one of them")
	case ifNotExists && merge:
		return usagef("--if-not-exists inserts: there is no stored entity to --merge into")
	}
	t, err := table.New[table.Entity](conn.svc, pos[0])
	if err != nil {
		return err
	}
	var ents []item
	switch {
	case slices.ContainsFunc(pos[1:], func(a string) bool { return strings.Contains(a, "=") }):
		ents, err = readProps(t, pos[1:])
	case len(pos) > 2:
		err = usagef("want one FILE, or NAME=VALUE arguments: got %q", pos[1:])
	case len(pos) == 2:
		ents, err = readPut(t, pos[1])
	default:
		ents, err = readPut(t, "-")
	}
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
		switch {
		case ifNotExists:
			res, err = t.Add(ctx, it.ent)
		case ifMatch != "":
			res, err = t.Update(ctx, it.ent, mode, azcore.ETag(ifMatch))
		default:
			res, err = t.Upsert(ctx, it.ent, mode)
		}
		if err != nil {
			err = fmt.Errorf("%s: %w", putWhere(it), writeOutcome(insertOutcome(err)))
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

// putWhere names an entity of put's input in an error: its line, if it
// came from one, and its keys.
func putWhere(it item) string {
	if it.line == 0 {
		return fmt.Sprintf("(%q, %q)", it.ent.PartitionKey, it.ent.RowKey)
	}
	return fmt.Sprintf("line %d (%q, %q)", it.line, it.ent.PartitionKey, it.ent.RowKey)
}

// insertOutcome marks the refusal of put --if-not-exists, an entity with
// the same keys stored, as the failed condition it is (exit status 4).
// ErrMaybeCommitted is left as it is: a retry that found the entity may
// have found its own first attempt.
func insertOutcome(err error) error {
	if errors.Is(err, tablekit.ErrAlreadyExists) && !errors.Is(err, tablekit.ErrMaybeCommitted) {
		return &existsError{err}
	}
	return err
}

// existsError is an insert refused because its entity exists.
type existsError struct{ err error }

func (e *existsError) Error() string {
	return "an entity with these keys exists, left as it is (--if-not-exists): " + e.err.Error()
}
func (e *existsError) Unwrap() []error { return []error{errExists, e.err} }

// maxProps bounds put's NAME=VALUE arguments: the keys, and a property
// and its type for each of the 252 properties an entity may have.
const maxProps = 2 + 2*252

// readProps reads put's NAME=VALUE arguments as one entity. A value is a
// string unless NAME@odata.type=Edm.X types it (never guessed from its
// text, as az storage entity does); every value is checked against its
// type before anything is sent.
func readProps(t *dynTable, args []string) ([]item, error) {
	vals := map[string]string{}
	types := map[string]string{}
	var names []string
	for _, a := range args {
		name, v, ok := strings.Cut(a, "=")
		if !ok {
			return nil, usagef("%q: want NAME=VALUE (NAME=VALUE arguments form one entity; a FILE comes alone)", a)
		}
		if prop, ok := strings.CutSuffix(name, "@odata.type"); ok {
			if _, dup := types[prop]; dup {
				return nil, usagef("%s: given twice", name)
			}
			typ, ok := edmTypeName(v)
			if !ok {
				return nil, usagef("%s=%s: unknown type (want Edm. and one of %s)", name, v, strings.Join(edmTypes, ", "))
			}
			types[prop] = typ
			continue
		}
		if _, dup := vals[name]; dup {
			return nil, usagef("%s: given twice", name)
		}
		switch {
		case name == "PartitionKey" || name == "RowKey":
		case name == "Timestamp":
			return nil, usagef("Timestamp: the service sets it; it cannot be written")
		default:
			if bad := wire.CheckPropertyName(name); bad != nil {
				return nil, usagef("%q: %s", a, bad)
			}
		}
		vals[name] = v
		names = append(names, name)
	}
	row := Row{PartitionKey: vals["PartitionKey"], RowKey: vals["RowKey"]}
	for _, k := range []string{"PartitionKey", "RowKey"} {
		if _, ok := vals[k]; !ok {
			return nil, usagef("no %s=VALUE: an entity needs both keys", k)
		}
		if typ, ok := types[k]; ok && typ != edmString {
			return nil, usagef("%s@odata.type=Edm.%s: keys are strings", k, typ)
		}
		if bad := wire.CheckKey(vals[k]); bad != nil {
			return nil, usagef("%s %q: %s", k, vals[k], bad)
		}
	}
	for _, prop := range slices.Sorted(maps.Keys(types)) {
		if _, ok := vals[prop]; !ok {
			typ := types[prop]
			return nil, usagef("%s@odata.type=Edm.%s types no property: give %s=VALUE too", prop, typ, prop)
		}
	}
	for _, name := range names {
		if name == "PartitionKey" || name == "RowKey" {
			continue
		}
		typ := types[name]
		if typ == "" {
			typ = edmString
		}
		row.Props = append(row.Props, Prop{Name: name, Type: typ, Value: vals[name]})
	}
	ent, err := rowEntity(t, row)
	if err != nil {
		return nil, usagef("%v (nothing was written)", err)
	}
	return []item{{ent: ent}}, nil
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
	next := jsonlRecords(t, nil, in, nil)
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
