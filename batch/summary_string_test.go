package batch

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/tablekit/tablekit"
)

func TestSummaryString(t *testing.T) {
	lost := errors.New("connection reset")
	invalid := &tablekit.ValidationError{Index: 7, Err: tablekit.ErrInvalid}
	tests := []struct {
		name string
		s    Summary
		want string
	}{
		{
			name: "all committed",
			s:    Summary{Ops: 20000, Chunks: 200, Read: 20000, Retries: 3, Duration: 2500 * time.Millisecond, states: make([]State, 20000)},
			want: "20000 operations in 200 transactions, all committed; 3 retries in 2.5s",
		},
		{
			name: "singulars",
			s:    Summary{Ops: 1, Chunks: 1, Read: 1, Retries: 1, Duration: time.Millisecond, states: make([]State, 1)},
			want: "1 operation in 1 transaction, all committed; 1 retry in 1ms",
		},
		{
			name: "throttled",
			s:    Summary{Ops: 100, Chunks: 1, Read: 100, Retries: 3, Throttled: 2, Duration: time.Second, states: make([]State, 100)},
			want: "100 operations in 1 transaction, all committed; 3 retries (2 throttled) in 1s",
		},
		{
			name: "unknown and not sent",
			s: Summary{Ops: 19890, Chunks: 199, Read: 20000, Retries: 12, Duration: 61 * time.Second, states: make([]State, 20000),
				Incomplete: []Chunk{
					{PartitionKey: "a", Ops: make([]int, 10), State: Unknown, Err: lost},
					{PartitionKey: "b", Ops: make([]int, 50), State: NotSent, Err: errNotSent},
				}},
			want: "20000 operations in 201 transactions: 19890 committed, 10 unknown (1 transaction), 0 failed, 100 not sent; 12 retries in 1m1s",
		},
		{
			name: "failed and invalid",
			s: Summary{Ops: 0, Chunks: 0, Read: 101, states: make([]State, 101),
				Incomplete: []Chunk{
					{PartitionKey: "a", Ops: make([]int, 100), State: Failed, Err: lost},
					{PartitionKey: "a", Ops: []int{100}, State: Failed, Err: invalid},
				}},
			want: "101 operations in 1 transaction: 0 committed, 0 unknown, 101 failed (1 transaction, 1 invalid), 0 not sent; 0 retries in 0s",
		},
		{
			name: "only invalid",
			s: Summary{Ops: 3, Chunks: 1, Read: 4, states: make([]State, 4),
				Incomplete: []Chunk{{PartitionKey: "a", Ops: []int{3}, State: Failed, Err: invalid}}},
			want: "4 operations in 1 transaction: 3 committed, 0 unknown, 1 failed (1 invalid), 0 not sent; 0 retries in 0s",
		},
		{
			name: "zero",
			want: "0 operations in 0 transactions, all committed; 0 retries in 0s",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.s.String(); got != tt.want {
				t.Errorf("String() = %q\nwant       %q", got, tt.want)
			}
			for _, verb := range []string{"%v", "%+v", "%s"} {
				if got := fmt.Sprintf(verb, tt.s); got != tt.want {
					t.Errorf("Sprintf(%q) = %q, want %q", verb, got, tt.want)
				}
			}
			if got := fmt.Sprint(&tt.s); got != tt.want {
				t.Errorf("Sprint(*Summary) = %q, want %q", got, tt.want)
			}
		})
	}
}

// TestSummaryStringIsShort: the line does not grow with the input.
func TestSummaryStringIsShort(t *testing.T) {
	s := Summary{Ops: 1_000_000, Chunks: 10_000, Read: 1_000_000, states: make([]State, 1_000_000)}
	for i := range 1000 {
		s.Incomplete = append(s.Incomplete, Chunk{PartitionKey: fmt.Sprint(i), Ops: make([]int, 100), State: Unknown})
	}
	if got := s.String(); len(got) > 200 || strings.Contains(got, "\n") {
		t.Errorf("String() has %d bytes: %q, want one line of at most 200", len(got), got)
	}
}
