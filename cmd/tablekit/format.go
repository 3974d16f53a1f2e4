package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"io"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// The file formats of export and import, and how a file's name picks one.
const (
	formatJSONL = "jsonl"
	formatCSV   = "csv"
)

// formatFlags are --format and --delimiter, which default to what the
// file's extension says.
type formatFlags struct {
	format, delim string
}

func (f *formatFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.format, "format", "", "jsonl (the service's JSON, one entity a line) or csv (as Azure Storage Explorer writes it); default: from the file's extension (.csv and .tsv are csv, .jsonl and .json jsonl), else jsonl")
	fs.StringVar(&f.delim, "delimiter", "", "CSV field delimiter: one character, or tab; default: tab for a .tsv file, else a comma")
}

// resolve returns the format and the CSV delimiter for the file at path
// ("-" is standard input or output, which has no extension).
func (f *formatFlags) resolve(path string) (format string, delim rune, err error) {
	ext := ""
	if path != "-" {
		ext = strings.ToLower(filepath.Ext(path))
	}
	format = f.format
	if format == "" {
		format = formatJSONL
		if ext == ".csv" || ext == ".tsv" {
			format = formatCSV
		}
	}
	if format != formatJSONL && format != formatCSV {
		return "", 0, usagef("--format %q: want jsonl or csv", format)
	}
	s := f.delim
	switch {
	case s == "" && ext == ".tsv":
		s = "\t"
	case s == "":
		s = ","
	case s == "tab" || s == `\t`:
		s = "\t"
	}
	d, size := utf8.DecodeRuneInString(s)
	if size != len(s) || d == '"' || d == '\n' || d == '\r' || d == utf8.RuneError {
		return "", 0, usagef("--delimiter %q: want one character other than a quote or newline", f.delim)
	}
	return format, d, nil
}

// checkFirst reads the input's first record before anything is created or
// written: a first line that is not in the chosen format (a CSV file read
// as JSON Lines, or the reverse) stops the import with one message instead
// of a reject per line. It returns the records with the first put back.
func checkFirst(next func() (inputRecord, error), format, path string) (func() (inputRecord, error), error) {
	first, err := next()
	var he *headerError
	switch {
	case errors.As(err, &he):
		return nil, usagef("%s is not CSV as tablekit reads it: %v%s", path, he, hintFormat(format, he.first))
	case err != nil && !errors.Is(err, io.EOF):
		return nil, err
	case format == formatJSONL && first.rej != nil && !isJSONObject(first.rej.Input):
		return nil, usagef("%s is not JSON Lines (one entity, a JSON object, per line): line %d begins %.40q%s",
			path, first.line, first.rej.Input, hintFormat(format, []byte(first.rej.Input)))
	}
	sent := false
	return func() (inputRecord, error) {
		if !sent {
			sent = true
			return first, err
		}
		return next()
	}, nil
}

func isJSONObject(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "{") && json.Valid([]byte(s))
}

// hintFormat guesses, from a first line that is not in format, the format
// it is in.
func hintFormat(format string, line []byte) string {
	line = bytes.TrimSpace(line)
	switch {
	case format == formatCSV && bytes.HasPrefix(line, []byte("{")):
		return "; it looks like JSON Lines: give --format jsonl"
	case format == formatJSONL && bytes.HasPrefix(line, []byte("[")):
		return "; it looks like a JSON array: write one entity per line"
	case format == formatJSONL && bytes.Contains(line, []byte("PartitionKey")):
		return "; it looks like a CSV header: give --format csv"
	case format == formatCSV && bytes.Contains(line, []byte("PartitionKey")):
		return "; is its delimiter another one? give --delimiter"
	}
	return ""
}
