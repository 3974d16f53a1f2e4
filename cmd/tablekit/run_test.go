package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// recorder is a source and a sink that write down the runner's calls to
// them, failing the one named in fail.
type recorder struct {
	calls []string
	fail  string
}

var errStep = errors.New("step failed")

func (r *recorder) step(name string) error {
	r.calls = append(r.calls, name)
	if name == r.fail {
		return errStep
	}
	return nil
}

type recSource struct{ *recorder }

func (s recSource) check(*job) error                 { return s.step("src.check") }
func (s recSource) open(context.Context, *job) error { return s.step("src.open") }
func (s recSource) close()                           { s.step("src.close") }

type recSink struct{ *recorder }

func (s recSink) check(*job) error                 { return s.step("dst.check") }
func (s recSink) open(context.Context, *job) error { return s.step("dst.open") }
func (s recSink) move(context.Context, *job) error { return s.step("dst.move") }
func (s recSink) stopped(*job)                     { s.step("dst.stopped") }
func (s recSink) completed(_ *job, err error) error {
	s.step("dst.completed")
	return err
}

func (s recSink) close(_ *job, err error) error {
	if err != nil {
		s.step("dst.close(err)")
	} else {
		s.step("dst.close")
	}
	return err
}

// TestJobRunOrder pins the order in which the runner calls a command's
// source and sink: the checks that send nothing before anything that
// does, the sink closed once its check passed, the source whatever
// happened, the checkpoint saved once the run moved, and nothing but the
// sink's report for a complete job.
func TestJobRunOrder(t *testing.T) {
	tests := []struct {
		name     string
		fail     string
		complete bool
		want     []string
		wantErr  error
	}{
		{"a run that moves everything", "", false,
			[]string{"src.check", "dst.check", "src.open", "dst.open", "dst.move", "dst.stopped", "dst.close", "src.close"}, nil},
		{"a source refused before any request", "src.check", false,
			[]string{"src.check", "src.close"}, errStep},
		{"a sink refused before any request", "dst.check", false,
			[]string{"src.check", "dst.check", "src.close"}, errStep},
		{"a source that cannot open", "src.open", false,
			[]string{"src.check", "dst.check", "src.open", "dst.close(err)", "src.close"}, errStep},
		{"a sink that cannot open", "dst.open", false,
			[]string{"src.check", "dst.check", "src.open", "dst.open", "dst.close(err)", "src.close"}, errStep},
		{"a move that fails", "dst.move", false,
			[]string{"src.check", "dst.check", "src.open", "dst.open", "dst.move", "dst.stopped", "dst.close(err)", "src.close"}, errStep},
		{"a complete job", "", true,
			[]string{"dst.completed"}, errComplete},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stderr bytes.Buffer
			e := &env{stdout: &bytes.Buffer{}, stderr: &stderr, getenv: func(string) string { return "" }}
			ctx := context.Background()
			ckpt := checkpointFlags{path: filepath.Join(t.TempDir(), "run.ckpt")}
			j, err := newJob(ctx, e, "count", ckpt, jobID{{"command", "count"}}, 0)
			if err != nil {
				t.Fatal(err)
			}
			j.cp.Complete = tt.complete
			rec := &recorder{fail: tt.fail}
			err = (&jobRun{job: j, retries: new(retryCount), what: "table t", src: recSource{rec}, dst: recSink{rec}}).run(ctx)
			if !slices.Equal(rec.calls, tt.want) {
				t.Errorf("calls\n got %v\nwant %v", rec.calls, tt.want)
			}
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Errorf("run: got %v, want %v", err, tt.wantErr)
			}
			// The last save is the runner's, and only a run that moved makes it.
			_, serr := os.Stat(ckpt.path)
			if got, want := serr == nil, slices.Contains(tt.want, "dst.move"); got != want {
				t.Errorf("checkpoint saved: got %v, want %v", got, want)
			}
		})
	}
}
