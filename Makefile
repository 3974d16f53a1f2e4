# tablekit: the two commands a new user needs are `make demo` and `make test`.
# Both start their own Azurite (npm package, pinned in package-lock.json) on a
# free 127.0.0.1 port in memory and stop it afterwards.

GO         ?= go
WITH_AZ    := $(GO) run ./devtools/cmd/withazurite --
EXAMPLES   := $(sort $(dir $(wildcard examples/*/main.go)))
GOTESTFLAGS ?= -race -count=1 -timeout 15m

.PHONY: test demo bench vet unit examples npm clean

# make test: install the pinned emulator, vet, run every test (integration
# tests included; a missing emulator fails the run), then every example.
test: npm vet
	TABLEKIT_REQUIRE_AZURITE=1 $(WITH_AZ) $(MAKE) --no-print-directory _test_with_azurite

_test_with_azurite:
	$(GO) test $(GOTESTFLAGS) ./...
	$(MAKE) --no-print-directory examples

# Runs every example program once against the emulator that is already up.
examples:
	@mkdir -p bin
	@set -e; for d in $(EXAMPLES); do \
		n=$$(basename $$d); \
		$(GO) build -o bin/example-$$n ./$$d; \
		echo "=== example $$n"; \
		./bin/example-$$n; \
	done

# make demo: the quick start against a local Azurite started for the run.
demo: npm
	$(WITH_AZ) $(GO) run ./examples/quickstart

# make bench: side-by-side benchmarks against plain aztables; writes BENCHMARKS.md.
bench: npm
	$(GO) run ./devtools/cmd/bench -out BENCHMARKS.md

vet:
	$(GO) vet ./...

npm:
	npm ci --no-audit --no-fund --loglevel=error

clean:
	rm -rf bin node_modules
