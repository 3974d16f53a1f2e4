package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"sync/atomic"
)

// Rounds end at whichever comes first: enough operations for every
// transaction in flight to be full, or enough bytes to bound memory.
var (
	roundOps   = 5000
	roundBytes = 16 << 20
)

// countReader counts the input's bytes for the ETA.
type countReader struct {
	r io.Reader
	n *atomic.Int64
}

func (c countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// inputRecord is one entity read, or the reason a line was refused.
type inputRecord struct {
	line int64
	ent  *item
	rej  *reject
}

// readRounds reads records from next, skips those before line from (a
// resumed run), and cuts the rest into rounds of at most ops entities.
func readRounds(ctx context.Context, next func() (inputRecord, error), from int64, ops int, out chan<- round) error {
	defer close(out)
	var r round
	send := func() bool {
		select {
		case out <- r:
			r = round{}
			return true
		case <-ctx.Done():
			return false
		}
	}
	for {
		rec, err := next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if rec.line < from {
			continue
		}
		r.next = lineToken(rec.line + 1)
		if rec.rej != nil {
			r.rejects = append(r.rejects, *rec.rej)
			continue
		}
		r.items = append(r.items, *rec.ent)
		r.bytes += rec.ent.size
		if len(r.items) >= ops || r.bytes >= roundBytes {
			if !send() {
				return ctx.Err()
			}
		}
	}
	if r.next != "" && !send() {
		return ctx.Err()
	}
	return nil
}

// jsonlRecords reads JSON Lines; blank lines and a BOM are skipped.
func jsonlRecords(t *dynTable, r io.Reader) func() (inputRecord, error) {
	br := bufio.NewReaderSize(r, 1<<20)
	skipBOM(br)
	var line int64
	return func() (inputRecord, error) {
		for {
			b, err := br.ReadBytes('\n')
			if len(b) == 0 && err != nil {
				return inputRecord{}, err
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return inputRecord{}, err
			}
			line++
			text := bytes.TrimRight(b, "\r\n")
			if len(bytes.TrimSpace(text)) == 0 {
				continue
			}
			ent, perr := parseLine(t, text)
			if perr != nil {
				return inputRecord{line: line, rej: &reject{Line: line, Reason: perr.Error(), Input: string(text)}}, nil
			}
			return inputRecord{line: line, ent: &item{line: line, ent: ent, text: text, size: len(text)}}, nil
		}
	}
}

// csvRecords reads Storage Explorer CSV; a record's line is where it
// starts (a quoted field may hold newlines).
func csvRecords(t *dynTable, r io.Reader, delim rune) func() (inputRecord, error) {
	cr := newCSVReader(bufio.NewReaderSize(r, 1<<20), delim)
	return func() (inputRecord, error) {
		row, err := cr.Read()
		var rj *csvReject
		if errors.As(err, &rj) {
			return inputRecord{line: int64(rj.Line), rej: &reject{Line: int64(rj.Line), Reason: rj.Reason}}, nil
		}
		if err != nil {
			return inputRecord{}, err
		}
		line := cr.Line()
		ent, perr := rowEntity(t, row)
		if perr != nil {
			return inputRecord{line: int64(line), rej: &reject{Line: int64(line), Reason: perr.Error()}}, nil
		}
		return inputRecord{line: int64(line), ent: &item{line: int64(line), ent: ent, size: approxSize(ent)}}, nil
	}
}

// skipBOM skips a UTF-8 byte order mark at the start of the input, which
// Excel and other Windows programs write.
func skipBOM(br *bufio.Reader) {
	if b, err := br.Peek(3); err == nil && string(b) == "\ufeff" {
		_, _ = br.Discard(3)
	}
}
