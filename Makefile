# tablekit: the two commands a new user needs are `make demo` and `make test`.
# Both start their own Azurite (npm package, pinned in package-lock.json) on a
# free 127.0.0.1 port in memory and stop it afterwards.

GO          ?= go
WITH_AZ     := $(GO) run ./devtools/cmd/withazurite --
EXAMPLES    := $(sort $(dir $(wildcard examples/*/main.go)))
GOTESTFLAGS ?= -race -count=1 -timeout 15m
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
# npm writes this file on every install; newer than package-lock.json means
# node_modules already matches the lock file and nothing is reinstalled.
NPM_STAMP   := node_modules/.package-lock.json

.PHONY: test short demo demo-cli azurite bench bench-micro lint vet examples npm clean _compile_tests _test_with_azurite

# make test: install the pinned emulator (if not yet), lint, run every test
# (integration tests included; a missing emulator fails the run), then every
# example. The install, lint and compiling the race-enabled test binaries
# run side by side: npm mostly waits on the network and the disk.
test:
	$(MAKE) --no-print-directory -j3 npm lint _compile_tests
	TABLEKIT_REQUIRE_AZURITE=1 $(WITH_AZ) $(MAKE) --no-print-directory _test_with_azurite

# Compiles what the run below needs, while npm waits on the network: every
# test binary with and without -race (-exec true runs none of them) and
# the examples.
_compile_tests:
	@$(GO) test -race -count=1 -exec true ./... >/dev/null
	@$(GO) test -count=1 -exec true ./... >/dev/null
	@$(GO) build ./examples/...

_test_with_azurite:
	$(GO) test $(GOTESTFLAGS) ./...
	@# The soaks again at full size without -race (under -race they run
	@# smaller: testenv.Size); the volume is what they test. One package at
	@# a time (-p 1): the rate soak plays a busy account against a token
	@# bucket, and other soaks or builds taking the two cores beside it turn
	@# its timing into throttled answers that are the machine's, not the
	@# limiter's.
	$(GO) test -p 1 -count=1 -timeout 10m -run '^TestSoak' ./...
	@# Allocation counts again without -race, whose sync.Pool drops what it
	@# is given: the TestAllocs tests skip under it.
	$(GO) test -count=1 -run '^TestAllocs' ./...
	$(MAKE) --no-print-directory examples

# make short: the fast loop, without the long soaks.
short: npm
	$(GO) test -race -short -count=1 ./...

# Runs every example program once against the emulator that is already up.
examples:
	@mkdir -p bin/examples
	$(GO) build -o bin/examples/ ./examples/...
	@set -e; for d in $(EXAMPLES); do \
		n=$$(basename $$d); \
		echo "=== example $$n"; \
		./bin/examples/$$n; \
	done

# make demo: the quick start against a local Azurite started for the run.
demo: npm
	$(WITH_AZ) $(GO) run ./examples/quickstart

# make demo-cli: the tablekit command imports two entities and exports them.
demo-cli: npm
	$(WITH_AZ) sh -c 'printf "%s\n" "{\"PartitionKey\":\"p\",\"RowKey\":\"1\",\"N\":\"7\",\"N@odata.type\":\"Edm.Int64\"}" "{\"PartitionKey\":\"p\",\"RowKey\":\"2\",\"D\":1.0,\"D@odata.type\":\"Edm.Double\"}" | $(GO) run ./cmd/tablekit import demo - --create && $(GO) run ./cmd/tablekit export demo && $(GO) run ./cmd/tablekit export demo --format csv'

# make azurite: the pinned emulator in the foreground on 127.0.0.1, in memory,
# until Ctrl-C, for a session of your own: it prints the connection string to
# export in another terminal. AZURITE_PORT=0 picks a free port.
AZURITE_PORT ?= 10002
azurite: npm
	@$(GO) build -o bin/withazurite ./devtools/cmd/withazurite
	./bin/withazurite -port $(AZURITE_PORT)

# make bench: side-by-side benchmarks against plain aztables; writes BENCHMARKS.md
# and its charts and results (docs/bench).
bench: npm
	$(GO) run ./devtools/cmd/bench -out BENCHMARKS.md

# make bench-micro: the client's micro-benchmarks (codec, page decoding,
# transaction building), no emulator; CONTRIBUTING.md compares two commits.
MICRO_BENCH := '^Benchmark(Encode|Decode|Page|Body|Parse|TxBuild)$$'
bench-micro:
	$(GO) test -run '^$$' -bench $(MICRO_BENCH) -benchmem -count 10 ./internal/codec ./internal/txwire ./devtools/workload

# make lint: formatting, go vet and staticcheck (pinned, run with go run).
lint: vet
	@out=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) run $(STATICCHECK) ./...

vet:
	$(GO) vet ./...

npm: $(NPM_STAMP)

# flock keeps two make runs from installing into the same node_modules at once.
$(NPM_STAMP): package-lock.json
	flock .npm.lock sh -c '[ $@ -nt package-lock.json ] || npm ci --no-audit --no-fund --loglevel=error'
	@touch $@

clean:
	rm -rf bin node_modules .npm.lock
