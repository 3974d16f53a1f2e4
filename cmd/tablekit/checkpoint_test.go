package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestCheckpointRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cp.json")
	got, err := loadCheckpoint(path, "job")
	if err != nil || got != nil {
		t.Fatalf("missing file: got %v, %v; want nil, nil", got, err)
	}
	c := checkpointFile{path}
	if err := c.save(Checkpoint{Job: "job", Token: "tok", Done: 42}); err != nil {
		t.Fatal(err)
	}
	got, err = loadCheckpoint(path, "job")
	if err != nil || got.Token != "tok" || got.Done != 42 {
		t.Fatalf("got %+v, %v; want token tok, done 42", got, err)
	}
	if _, err := loadCheckpoint(path, "other"); err == nil {
		t.Fatal("a checkpoint of another job was accepted")
	}
}

func TestCheckpointRefusesGarbage(t *testing.T) {
	tests := []struct{ name, content string }{
		{"torn", `{"version":1,"job":"job","tok`},
		{"future", `{"version":99,"job":"job"}`},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "cp.json")
		os.WriteFile(path, []byte(tt.content), 0o600)
		if _, err := loadCheckpoint(path, "job"); err == nil {
			t.Errorf("%s: loaded without error", tt.name)
		}
	}
}

// TestCheckpointAtomic saves over and over while readers load: every load
// must see one complete checkpoint, and no temporary file may be left.
func TestCheckpointAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cp.json")
	c := checkpointFile{path}
	big := strings.Repeat("x", 64<<10) // large enough that a torn write would show
	if err := c.save(Checkpoint{Job: "job", Token: big}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	errs := make(chan error, 4)
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				cp, err := loadCheckpoint(path, "job")
				if err != nil {
					errs <- err
					return
				}
				if !strings.HasPrefix(cp.Token, big) || cp.Done != int64(len(cp.Token)-len(big)) {
					errs <- fmt.Errorf("inconsistent checkpoint: done %d", cp.Done)
					return
				}
			}
		}()
	}
	for i := 1; i <= 25; i++ {
		tok := big + strings.Repeat("y", i)
		if err := c.save(Checkpoint{Job: "job", Token: tok, Done: int64(i)}); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("directory holds %d files after saves, want 1 (no temporary files left)", len(entries))
	}
}
