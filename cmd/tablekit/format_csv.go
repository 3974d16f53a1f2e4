package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tablekit/tablekit/table"
)

// This file reads and writes CSV the way Azure Storage Explorer exports and
// imports tables, on a neutral row (names, EDM type names, strings) so that
// it does not depend on how entities are represented in memory.
//
//	PartitionKey,RowKey,Timestamp,Age,Age@type,Name,Name@type
//	p1,r1,2024-01-02T03:04:05.123Z,42,Int32,Alice,String
//	p1,r2,2024-01-02T03:04:06Z,,,Bob,String
//
// An absent property has empty value and type cells. A present empty string
// has an empty value and the type String.

// The EDM type names of the @type columns.
const (
	edmString   = "String"
	edmInt32    = "Int32"
	edmInt64    = "Int64"
	edmDouble   = "Double"
	edmBoolean  = "Boolean"
	edmDateTime = "DateTime"
	edmGUID     = "Guid"
	edmBinary   = "Binary"
)

var edmTypes = []string{edmString, edmInt32, edmInt64, edmDouble, edmBoolean, edmDateTime, edmGUID, edmBinary}

const typeSuffix = "@type"

// Prop is one property of a Row: its name, EDM type name and value as text.
type Prop struct {
	Name, Type, Value string
}

// Row is one entity as text. Timestamp is informational: the service sets
// it, so an import ignores it.
type Row struct {
	PartitionKey, RowKey, Timestamp string
	Props                           []Prop
}

// csvReject is a row that cannot be imported; reading goes on after it.
// Input is the row as the file has it, so that it can be fixed and
// imported again.
type csvReject struct {
	Line   int
	Reason string
	Input  string
}

func (e *csvReject) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Reason) }

// csvColumn is a property column and, if the file has one, its type column.
type csvColumn struct {
	name      string
	value     int
	typ       int    // -1: no @type column
	stickyTyp string // the type the first row gave, for rows that leave it out
}

// csvReader reads Rows. Errors from Read are either a *csvReject (skip the
// row and go on) or fatal (a bad header, an I/O error).
type csvReader struct {
	r          *rfcReader
	pk, rk, ts int
	cols       []csvColumn
	headerRead bool
	headerErr  error
	line       int    // where the last row read starts
	head       []byte // the start of the first line, for messages
}

func newCSVReader(r io.Reader, delim rune) *csvReader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	skipBOM(br)
	head, _ := br.Peek(256)
	if i := bytes.IndexByte(head, '\n'); i >= 0 {
		head = head[:i]
	}
	return &csvReader{r: newRFCReader(br, delim), pk: -1, rk: -1, ts: -1, head: bytes.Clone(head)}
}

// headerError is a first line that is not a CSV header tablekit can read;
// first is the start of that line.
type headerError struct {
	err   error
	first []byte
}

func (e *headerError) Error() string { return "csv header: " + e.err.Error() }
func (e *headerError) Unwrap() error { return e.err }

func (c *csvReader) header() error {
	if c.headerRead {
		return c.headerErr
	}
	c.headerRead = true
	rec, _, err := c.r.Read()
	if err == io.EOF {
		c.headerErr = &headerError{errors.New("empty file, no header"), nil}
		return c.headerErr
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		c.headerErr = &headerError{err, c.head}
		return c.headerErr
	}
	if err != nil {
		c.headerErr = fmt.Errorf("csv header: %w", err)
		return c.headerErr
	}
	bad := func(format string, a ...any) error {
		c.headerErr = &headerError{fmt.Errorf(format, a...), c.head}
		return c.headerErr
	}
	byName := map[string]int{}
	for i, h := range rec {
		h = strings.TrimSpace(h)
		if _, dup := byName[h]; dup {
			return bad("column %q twice", h)
		}
		byName[h] = i
	}
	for _, h := range []string{"PartitionKey", "RowKey"} {
		if _, ok := byName[h]; !ok {
			return bad("no %s column", h)
		}
	}
	c.pk, c.rk = byName["PartitionKey"], byName["RowKey"]
	if i, ok := byName["Timestamp"]; ok {
		c.ts = i
	}
	for i, h := range rec {
		h = strings.TrimSpace(h)
		switch {
		case i == c.pk || i == c.rk || i == c.ts:
		case strings.HasSuffix(h, typeSuffix):
			if _, ok := byName[strings.TrimSuffix(h, typeSuffix)]; !ok {
				return bad("%q has no column %q", h, strings.TrimSuffix(h, typeSuffix))
			}
		case h == "":
			return bad("column %d has no name", i+1)
		default:
			col := csvColumn{name: h, value: i, typ: -1}
			if t, ok := byName[h+typeSuffix]; ok {
				col.typ = t
			}
			c.cols = append(c.cols, col)
		}
	}
	return nil
}

// Read returns the next row, io.EOF at the end, a *csvReject for a row that
// cannot be imported, or a fatal error. Line says where the row starts.
func (c *csvReader) Read() (Row, error) {
	if err := c.header(); err != nil {
		return Row{}, err
	}
	rec, line, err := c.r.Read()
	if err == io.EOF {
		return Row{}, io.EOF
	}
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		reason := pe.Err.Error()
		if pe.Line != pe.StartLine {
			reason += fmt.Sprintf(" (found on line %d)", pe.Line)
		}
		return Row{}, &csvReject{Line: pe.StartLine, Reason: reason, Input: c.r.Text()}
	}
	if err != nil {
		return Row{}, err
	}
	c.line = line
	row := Row{PartitionKey: rec[c.pk], RowKey: rec[c.rk]}
	if c.ts >= 0 {
		row.Timestamp = rec[c.ts]
	}
	for i := range c.cols {
		col := &c.cols[i]
		v, typ := rec[col.value], ""
		if col.typ >= 0 {
			typ = strings.TrimSpace(rec[col.typ])
		}
		if typ == "" && v == "" {
			continue // absent
		}
		if typ != "" {
			t, ok := edmTypeName(typ)
			if !ok {
				return Row{}, &csvReject{Line: line, Reason: fmt.Sprintf("%s: unknown type %q (want one of %s)", col.name, typ, strings.Join(edmTypes, ", ")), Input: c.r.Text()}
			}
			typ = t
			if col.stickyTyp == "" {
				col.stickyTyp = t
			}
		} else if typ = col.stickyTyp; typ == "" {
			typ = edmString
		}
		norm, err := checkValue(typ, v)
		if err != nil {
			return Row{}, &csvReject{Line: line, Reason: fmt.Sprintf("%s: %v", col.name, err), Input: c.r.Text()}
		}
		row.Props = append(row.Props, Prop{Name: col.name, Type: typ, Value: norm})
	}
	return row, nil
}

// Line is the line the last row returned by Read starts on.
func (c *csvReader) Line() int { return c.line }

// Text is the last row returned by Read as the file has it.
func (c *csvReader) Text() string { return c.r.Text() }

// edmTypeName accepts a type name as Storage Explorer writes it, with or
// without the "Edm." prefix and in any case.
func edmTypeName(s string) (string, bool) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "Edm."), "edm.")
	for _, t := range edmTypes {
		if strings.EqualFold(s, t) {
			return t, true
		}
	}
	return "", false
}

// checkValue parses v as typ and returns its canonical text.
func checkValue(typ, v string) (string, error) {
	x, err := parseValue(typ, v)
	if err != nil {
		return "", err
	}
	_, s, err := formatValue(x)
	return s, err
}

// parseValue converts a cell to the Go value of its EDM type: string, bool,
// int32, int64, float64, time.Time, table.GUID or []byte, the value types of
// a dynamic entity.
func parseValue(typ, v string) (any, error) {
	switch typ {
	case edmString:
		return v, nil
	case edmInt32:
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%q is not an Int32", v)
		}
		return int32(n), nil
	case edmInt64:
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an Int64", v)
		}
		return n, nil
	case edmDouble:
		f, err := parseDouble(v)
		if err != nil {
			return nil, fmt.Errorf("%q is not a Double (a number, NaN, Infinity or -Infinity)", v)
		}
		return f, nil
	case edmBoolean:
		b, err := strconv.ParseBool(strings.ToLower(strings.TrimSpace(v)))
		if err != nil {
			return nil, fmt.Errorf("%q is not a Boolean (true or false)", v)
		}
		return b, nil
	case edmDateTime:
		t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("%q is not a DateTime (RFC 3339, e.g. 2024-01-02T03:04:05.123Z)", v)
		}
		return t.UTC(), nil
	case edmGUID:
		g, err := table.ParseGUID(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("%q is not a Guid", v)
		}
		return g, nil
	case edmBinary:
		b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(v))
		if err != nil {
			return nil, fmt.Errorf("%q is not Binary (base64)", v)
		}
		return b, nil
	}
	return nil, fmt.Errorf("unknown type %q", typ)
}

// formatValue is the inverse of parseValue: the EDM type name and text of
// a Go value.
func formatValue(x any) (typ, s string, err error) {
	switch v := x.(type) {
	case string:
		return edmString, v, nil
	case int32:
		return edmInt32, strconv.FormatInt(int64(v), 10), nil
	case int64:
		return edmInt64, strconv.FormatInt(v, 10), nil
	case float64:
		return edmDouble, formatDouble(v), nil
	case bool:
		return edmBoolean, strconv.FormatBool(v), nil
	case time.Time:
		return edmDateTime, v.UTC().Format(time.RFC3339Nano), nil
	case table.GUID:
		return edmGUID, v.String(), nil
	case []byte:
		return edmBinary, base64.StdEncoding.EncodeToString(v), nil
	}
	return "", "", fmt.Errorf("no EDM type for %T", x)
}

// csvWriter writes Rows under a header made from the property names it is
// given; a CSV header comes first, so the caller knows the columns before
// the first row (for an export: from a first pass, or a page read ahead).
type csvWriter struct {
	w       *csv.Writer
	columns []string
	index   map[string]int
	wrote   bool
}

func newCSVWriter(w io.Writer, delim rune, columns []string) *csvWriter {
	cw := csv.NewWriter(w)
	cw.Comma = delim
	index := make(map[string]int, len(columns))
	for i, c := range columns {
		index[c] = i
	}
	return &csvWriter{w: cw, columns: columns, index: index}
}

func (c *csvWriter) writeHeader() error {
	if c.wrote {
		return nil
	}
	c.wrote = true
	h := []string{"PartitionKey", "RowKey", "Timestamp"}
	for _, n := range c.columns {
		h = append(h, n, n+typeSuffix)
	}
	return c.w.Write(h)
}

// Write writes one row. A property that is not one of the columns is an
// error and nothing is written.
func (c *csvWriter) Write(r Row) error {
	if err := c.writeHeader(); err != nil {
		return err
	}
	rec := make([]string, 3+2*len(c.columns))
	rec[0], rec[1], rec[2] = r.PartitionKey, r.RowKey, r.Timestamp
	for _, p := range r.Props {
		i, ok := c.index[p.Name]
		if !ok {
			return fmt.Errorf("csv: property %q is not one of the columns", p.Name)
		}
		rec[3+2*i], rec[4+2*i] = p.Value, p.Type
	}
	return c.w.Write(rec)
}

// Flush writes the header even for no rows, and reports write errors.
func (c *csvWriter) Flush() error {
	if err := c.writeHeader(); err != nil {
		return err
	}
	c.w.Flush()
	return c.w.Error()
}
