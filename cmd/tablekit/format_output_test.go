package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestOutputGzipResume writes a .gz output in two saves, then a third part
// that a crash cuts short, and resumes at the second save: the file reads
// back as the first two parts and the resumed part, whole gzip.
func TestOutputGzipResume(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.jsonl.gz")
	o, err := openOutput(path, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var saved int64
	for _, part := range []string{"one\n", "two\n"} {
		o.Write([]byte(part))
		if saved, err = o.sync(); err != nil {
			t.Fatal(err)
		}
	}
	if again, err := o.sync(); err != nil || again != saved {
		t.Errorf("a sync with nothing written: %d, %v; want the length unchanged, %d", again, err, saved)
	}
	o.Write(bytes.Repeat([]byte("lost\n"), 1000))
	o.buf.Flush() // reaches the gzip writer and part of it the file, as before a crash
	o.f.Close()

	o, err = openOutput(path, nil, map[string]string{extraBytes: strconv.FormatInt(saved, 10)})
	if err != nil {
		t.Fatal(err)
	}
	o.Write([]byte("three\n"))
	if err := o.close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(zr)
	if want := "one\ntwo\nthree\n"; err != nil || string(got) != want {
		t.Errorf("read back %q, %v; want %q", got, err, want)
	}
}

// TestOutputDevice writes to /dev/null, which cannot be truncated, sought
// or synced, on a fresh start and on a resume.
func TestOutputDevice(t *testing.T) {
	if _, err := os.Stat("/dev/null"); err != nil {
		t.Skipf("no /dev/null: %v", err)
	}
	for _, resume := range []map[string]string{nil, {extraBytes: "100"}} {
		o, err := openOutput("/dev/null", nil, resume)
		if err != nil {
			t.Fatalf("resume %v: %v", resume, err)
		}
		o.Write([]byte("x\n"))
		if _, err := o.sync(); err != nil {
			t.Errorf("resume %v: sync: %v", resume, err)
		}
		if err := o.close(); err != nil {
			t.Errorf("resume %v: close: %v", resume, err)
		}
	}
}
