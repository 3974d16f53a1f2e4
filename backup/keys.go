package backup

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
)

// key is an entity's keys.
type key struct{ pk, rk string }

func compareKeys(a, b key) int {
	if c := strings.Compare(a.pk, b.pk); c != 0 {
		return c
	}
	return strings.Compare(a.rk, b.rk)
}

// keySet maps each key to the ETag of the version the backups hold.
type keySet map[key]string

// sorted returns the keys in key order, so that the keys file compresses
// well (neighbours share prefixes) and diffs.
func (s keySet) sorted() []key {
	ks := make([]key, 0, len(s))
	for k := range s {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, compareKeys)
	return ks
}

// writeKeys writes s as a keys file: ["pk","rk","etag"] per line (no
// ETag when it is empty, as in the deleted keys), sorted and compressed,
// and closes w. The ETag is what an entity read again in the overlap, or
// change detection by ETag, is compared with.
func writeKeys(ctx context.Context, w *fileWriter, s keySet) error {
	defer w.stop()
	for _, k := range s.sorted() {
		rec := []string{k.pk, k.rk}
		if et := s[k]; et != "" {
			rec = append(rec, et)
		}
		b, err := json.Marshal(rec)
		if err != nil {
			return err
		}
		if err := w.add(ctx, append(b, '\n')); err != nil {
			return err
		}
	}
	return w.close(ctx)
}

// readKeys reads a keys file written by writeKeys.
func readKeys(ctx context.Context, st Store, f File) (keySet, error) {
	s := make(keySet, f.Lines)
	err := readLines(ctx, st, f, func(line []byte) error {
		var rec []string
		if err := json.Unmarshal(line, &rec); err != nil || len(rec) < 2 {
			return &CorruptError{File: f.Name, Reason: "a line is not [PartitionKey, RowKey, ETag]", Err: err}
		}
		etag := ""
		if len(rec) > 2 {
			etag = rec[2]
		}
		s[key{rec[0], rec[1]}] = etag
		return nil
	})
	return s, err
}
