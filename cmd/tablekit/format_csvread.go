package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"io"
	"unicode/utf8"
)

// rfcReader reads RFC 4180 records exactly as encoding/csv's Reader does
// (same records, same *csv.ParseError values and line numbers, empty lines
// skipped, every record as long as the first), except that a quoted field
// keeps every byte: encoding/csv turns a CR LF inside quotes into LF, and a
// table value must come back as it was stored. Outside quotes a record
// ends at LF or CR LF, and a CR just before the end of the input is
// dropped, as there. FuzzRFCReader holds the two readers equal.
type rfcReader struct {
	r       *bufio.Reader
	comma   rune
	numLine int
	fields  int // the first record's length; 0 until it is read

	rawBuffer    []byte
	recordBuffer []byte
	fieldIndexes []int
	record       []byte // the last record's lines as read, for a reject's input
}

func newRFCReader(r *bufio.Reader, comma rune) *rfcReader {
	return &rfcReader{r: r, comma: comma}
}

// readLine reads the next line with its line ending. At the end of the
// input a line may have none, and a CR ending it is dropped. Unlike
// encoding/csv it keeps a CR LF as it is.
func (r *rfcReader) readLine() ([]byte, error) {
	line, err := r.r.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		r.rawBuffer = append(r.rawBuffer[:0], line...)
		for err == bufio.ErrBufferFull {
			line, err = r.r.ReadSlice('\n')
			r.rawBuffer = append(r.rawBuffer, line...)
		}
		line = r.rawBuffer
	}
	if len(line) > 0 && err == io.EOF {
		err = nil
		if line[len(line)-1] == '\r' {
			line = line[:len(line)-1]
		}
	}
	r.numLine++
	return line, err
}

// lengthNL is the length of line's ending: 2 for CR LF, 1 for LF, else 0.
func lengthNL(line []byte) int {
	n := len(line)
	switch {
	case n >= 2 && line[n-2] == '\r' && line[n-1] == '\n':
		return 2
	case n >= 1 && line[n-1] == '\n':
		return 1
	}
	return 0
}

// colNL is the width encoding/csv gives a line ending in its column
// numbers, which count a CR LF as one byte.
func colNL(line []byte) int { return min(lengthNL(line), 1) }

// Read returns the next record and the line it starts on, io.EOF at the
// end, or a *csv.ParseError (with the fields read so far; reading can go
// on with the next line).
func (r *rfcReader) Read() (record []string, recLine int, err error) {
	var line []byte
	var errRead error
	for errRead == nil {
		line, errRead = r.readLine()
		if errRead == nil && len(line) == lengthNL(line) {
			line = nil
			continue // an empty line
		}
		break
	}
	if errRead == io.EOF {
		return nil, 0, errRead
	}
	r.record = append(r.record[:0], line...)

	const quoteLen = len(`"`)
	commaLen := utf8.RuneLen(r.comma)
	recLine = r.numLine
	r.recordBuffer = r.recordBuffer[:0]
	r.fieldIndexes = r.fieldIndexes[:0]
	lineNo, col := r.numLine, 1
parseField:
	for {
		if len(line) == 0 || line[0] != '"' {
			// A field without quotes: up to the delimiter or the line's end.
			i := bytes.IndexRune(line, r.comma)
			field := line
			if i >= 0 {
				field = field[:i]
			} else {
				field = field[:len(field)-lengthNL(field)]
			}
			if j := bytes.IndexByte(field, '"'); j >= 0 {
				err = &csv.ParseError{StartLine: recLine, Line: r.numLine, Column: col + j, Err: csv.ErrBareQuote}
				break parseField
			}
			r.recordBuffer = append(r.recordBuffer, field...)
			r.fieldIndexes = append(r.fieldIndexes, len(r.recordBuffer))
			if i >= 0 {
				line = line[i+commaLen:]
				col += i + commaLen
				continue parseField
			}
			break parseField
		}
		// A quoted field: every byte up to the closing quote, line endings
		// included.
		line = line[quoteLen:]
		col += quoteLen
		for {
			i := bytes.IndexByte(line, '"')
			switch {
			case i >= 0:
				r.recordBuffer = append(r.recordBuffer, line[:i]...)
				line = line[i+quoteLen:]
				col += i + quoteLen
				switch rn, _ := utf8.DecodeRune(line); {
				case rn == '"': // "" is a quote
					r.recordBuffer = append(r.recordBuffer, '"')
					line = line[quoteLen:]
					col += quoteLen
				case rn == r.comma: // the field ends
					line = line[commaLen:]
					col += commaLen
					r.fieldIndexes = append(r.fieldIndexes, len(r.recordBuffer))
					continue parseField
				case lengthNL(line) == len(line): // the record ends
					r.fieldIndexes = append(r.fieldIndexes, len(r.recordBuffer))
					break parseField
				default:
					err = &csv.ParseError{StartLine: recLine, Line: r.numLine, Column: col - quoteLen, Err: csv.ErrQuote}
					break parseField
				}
			case len(line) > 0:
				// The line ends inside the quotes: keep it whole.
				r.recordBuffer = append(r.recordBuffer, line...)
				if errRead != nil {
					break parseField
				}
				col += len(line) - (lengthNL(line) - colNL(line))
				line, errRead = r.readLine()
				r.record = append(r.record, line...)
				if len(line) > 0 {
					lineNo++
					col = 1
				}
				if errRead == io.EOF {
					errRead = nil
				}
			default:
				// The input ends inside the quotes.
				if errRead == nil {
					err = &csv.ParseError{StartLine: recLine, Line: lineNo, Column: col, Err: csv.ErrQuote}
					break parseField
				}
				r.fieldIndexes = append(r.fieldIndexes, len(r.recordBuffer))
				break parseField
			}
		}
	}
	if err == nil {
		err = errRead
	}
	str := string(r.recordBuffer) // one allocation for the record's fields
	record = make([]string, len(r.fieldIndexes))
	prev := 0
	for i, idx := range r.fieldIndexes {
		record[i] = str[prev:idx]
		prev = idx
	}
	if r.fields == 0 {
		r.fields = len(record)
	} else if len(record) != r.fields && err == nil {
		err = &csv.ParseError{StartLine: recLine, Line: recLine, Column: 1, Err: csv.ErrFieldCount}
	}
	return record, recLine, err
}

// Text is the last record Read returned as it was in the input, every
// line of it, without the line ending after it.
func (r *rfcReader) Text() string {
	return string(r.record[:len(r.record)-lengthNL(r.record)])
}
