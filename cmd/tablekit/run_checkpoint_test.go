package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// testJob is the job of the checkpoints these tests save.
var testJob = jobID{{"command", "export"}, {"table", "orders"}}

func TestCheckpointRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cp.json")
	got, err := loadCheckpoint(path, testJob)
	if err != nil || got != nil {
		t.Fatalf("missing file: got %v, %v; want nil, nil", got, err)
	}
	c := checkpointFile{path}
	if err := c.save(Checkpoint{Job: testJob.fields(), Token: "tok", Done: 42}); err != nil {
		t.Fatal(err)
	}
	got, err = loadCheckpoint(path, testJob)
	if err != nil || got.Token != "tok" || got.Done != 42 {
		t.Fatalf("got %+v, %v; want token tok, done 42", got, err)
	}
	if _, err := loadCheckpoint(path, jobID{{"command", "other"}}); err == nil {
		t.Fatal("a checkpoint of another job was accepted")
	}
}

func TestCheckpointRefusesGarbage(t *testing.T) {
	tests := []struct{ name, content string }{
		{"torn", `{"version":4,"job":{"command":"export"},"tok`},
		{"future", `{"version":99,"job":{"command":"export"}}`},
	}
	for _, tt := range tests {
		path := filepath.Join(t.TempDir(), "cp.json")
		os.WriteFile(path, []byte(tt.content), 0o600)
		if _, err := loadCheckpoint(path, testJob); !errors.Is(err, errUsage) {
			t.Errorf("%s: got %v, want a usage error", tt.name, err)
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
	if err := c.save(Checkpoint{Job: testJob.fields(), Token: big}); err != nil {
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
				cp, err := loadCheckpoint(path, testJob)
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
		if err := c.save(Checkpoint{Job: testJob.fields(), Token: tok, Done: int64(i)}); err != nil {
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

// TestCheckpointOfAnotherJob loads a checkpoint with a job that differs
// in each way a run can: the refusal is a usage error naming every
// difference, the saved value first.
func TestCheckpointOfAnotherJob(t *testing.T) {
	saved := jobID{{"command", "export"}, {"table", "orders"}, {"filter", "N lt 100"}, {"output", "/data/a.jsonl"}, {"ordered", "false"}}
	path := filepath.Join(t.TempDir(), "cp.json")
	if err := (checkpointFile{path}).save(Checkpoint{Job: saved.fields()}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		job  jobID
		want []string
	}{
		{"table", jobID{{"command", "export"}, {"table", "orders2"}, {"filter", "N lt 100"}, {"output", "/data/a.jsonl"}, {"ordered", "false"}},
			[]string{"of table orders, not orders2"}},
		{"command", jobID{{"command", "import"}, {"table", "orders"}, {"filter", "N lt 100"}, {"output", "/data/a.jsonl"}, {"ordered", "false"}},
			[]string{"of command export, not import"}},
		{"filter and output", jobID{{"command", "export"}, {"table", "orders"}, {"filter", ""}, {"output", "/data/b.jsonl"}, {"ordered", "false"}},
			[]string{`of filter "N lt 100", not none`, "of output /data/a.jsonl, not /data/b.jsonl"}},
		{"a field more", jobID{{"command", "export"}, {"table", "orders"}, {"filter", "N lt 100"}, {"output", "/data/a.jsonl"}, {"ordered", "false"}, {"limit", "7"}},
			[]string{"of limit none, not 7"}},
		{"a field less", jobID{{"command", "export"}, {"table", "orders"}, {"filter", "N lt 100"}, {"output", "/data/a.jsonl"}},
			[]string{"of ordered false, not none"}},
	}
	for _, tt := range tests {
		_, err := loadCheckpoint(path, tt.job)
		if !errors.Is(err, errUsage) {
			t.Errorf("%s: got %v, want a usage error", tt.name, err)
			continue
		}
		got := err.Error()
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: got %q, want it to say %q", tt.name, got, w)
			}
		}
		if n := strings.Count(got, ", not "); n != len(tt.want) {
			t.Errorf("%s: got %d differences in %q, want %d", tt.name, n, got, len(tt.want))
		}
	}
	if got, err := loadCheckpoint(path, saved); err != nil || got == nil {
		t.Errorf("its own job: got %v, %v; want the checkpoint", got, err)
	}
}

func TestParseStopHook(t *testing.T) {
	tests := []struct {
		in        string
		wantNil   bool
		kill      bool
		after     int
		wantUsage bool
	}{
		{in: "", wantNil: true},
		{in: "int:0", after: 0},
		{in: "kill:3", kill: true, after: 3},
		{in: "int", wantUsage: true},
		{in: "term:1", wantUsage: true},
		{in: "kill:-1", wantUsage: true},
	}
	for _, tt := range tests {
		h, err := parseStopHook(tt.in)
		switch {
		case tt.wantUsage:
			if !errors.Is(err, errUsage) {
				t.Errorf("%q: got %v, want a usage error", tt.in, err)
			}
		case err != nil:
			t.Errorf("%q: %v", tt.in, err)
		case tt.wantNil:
			if h != nil {
				t.Errorf("%q: got a hook, want none", tt.in)
			}
		case h == nil || h.kill != tt.kill || h.after != tt.after:
			t.Errorf("%q: got %+v, want kill %v after %d", tt.in, h, tt.kill, tt.after)
		}
	}
}
