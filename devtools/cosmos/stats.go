package cosmos

import "strings"

// Stats counts what the stand-in did since Start or the last Reset.
type Stats struct {
	// Requests is every request that reached the stand-in.
	Requests int
	// Throttled is the requests answered 429.
	Throttled int
	// TooLarge is the requests answered 413: a $batch body or an entity
	// over Cosmos DB's limits.
	TooLarge int
	// Refused is the requests or batch operations answered 400 by a Cosmos
	// DB rule the stand-in plays (key length, reserved property name), and
	// the query continuations it did not make.
	Refused int
	// Unsupported counts the calls the Table API does not have, by call:
	// "service properties", "service stats", "table acl", "cors" and
	// "secondary" (a dial to <account>-secondary).
	Unsupported map[string]int
	// QueryPages is the query pages the stand-in served itself.
	QueryPages int
	// LargeWrites is the updates, upserts and merges over Azurite's 1 MiB
	// limit that the stand-in wrote in steps.
	LargeWrites int
}

// Stats returns a copy of the counters.
func (s *Server) Stats() Stats {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.stats
	st.Unsupported = make(map[string]int, len(s.stats.Unsupported))
	for k, v := range s.stats.Unsupported {
		st.Unsupported[k] = v
	}
	return st
}

// Count returns how many requests arrived whose "METHOD /path" (such as
// "POST /$batch" or "GET /t1()") contains str.
func (s *Server) Count(str string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for k, c := range s.counts {
		if strings.Contains(k, str) {
			n += c
		}
	}
	return n
}

// Reset zeroes the counters. Throttle rules keep their budgets; SetThrottle
// renews those.
func (s *Server) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.counts)
	s.stats = Stats{Unsupported: map[string]int{}}
}

// bump adds one to the counter f picks.
func (s *Server) bump(f func(*Stats) *int) {
	s.mu.Lock()
	*f(&s.stats)++
	s.mu.Unlock()
}
