// Package devtools is the root of tablekit's development tooling: the Azurite
// launcher (azurite), the test environment (testenv), the fault and latency
// proxy (faults), the Cosmos DB stand-in (cosmos), canned azcore errors
// (azerrors), the benchmark workload (workload) and the commands behind
// `make` (cmd/withazurite, cmd/bench).
//
// Nothing here is part of the library's API and nothing in table, query,
// batch, retry or sas imports it; it may change at any time.
package devtools
