# Event Service API: conformance suite and reference server.
#
#   make run                  the reference server on :8080, demo credentials
#   make test                 everything: vet, formatting, unit tests and the
#                             conformance suite against an in-process server,
#                             all under the race detector; the breakages only
#                             exploration finds (without it); and a short run
#                             of every fuzz target
#   make conformance          the suite alone, its scenarios then an
#                             exploration of a minute (CONFORMANCE_EXPLORE=0:
#                             none), with reports in reports/; against a
#                             deployment with
#                             BASE_URL=https://staging.example (READ_ONLY=1
#                             leaves out the scenarios that write); with
#                             CONTROL_URL=http://127.0.0.1:9090 (a reference
#                             server's control API) also the token validity
#                             scenarios, which move its clock; every
#                             CONFORMANCE_* variable reaches the runner.
#                             Make ends a failed run with its own status 2,
#                             the suite's "could not start": CI jobs run
#                             bin/conformance, whose exit statuses are the
#                             suite's (docs/running-against-a-deployment.md)
#   make explore              generated sequences of actions alone, against
#                             the same target, with the same variables, checked
#                             rule by rule; a failing one shrunk to a few
#                             actions, with a curl script and a replay file
#                             (docs/explore.md). Make ends a failed run with
#                             its own status 2 here too: CI jobs run
#                             bin/conformance explore
#   make build                bin/eventsvc and bin/conformance, stamped
#                             with VERSION, REVISION and DATE (eventsvc
#                             version, conformance -version)
#   make release              archives of both binaries for PLATFORMS
#                             (linux, darwin, windows on amd64 and arm64)
#                             in DIST (dist/), each with the README and
#                             the docs, and their SHA256SUMS
#   make docs                 regenerate the documentation page from the
#                             features and the server (make test fails
#                             when it is out of date)
#   make openapi-tools        the pinned Node tools the OpenAPI document's
#                             tests run (Redocly CLI, Spectral, Prism), in
#                             docs/openapi/lint/node_modules; needs npm; without
#                             them those tests are skipped (in CI they fail)
#   make client-tools         the pinned client libraries (ketting) whose
#                             use the reference server's client checks must
#                             not blame, in eventsvctest/testdata/clients;
#                             needs npm; without them that test is skipped
#                             (in CI it fails)
#   make bench                wrk against eventsvc and against a bare Fiber
#                             app that answers the same bytes, in one run:
#                             a table of rates, ratios and goals (installs
#                             wrk from Debian when it is missing; about
#                             three minutes; not part of make test)
#   make bench-suite          bin/conformance timed as a whole process
#                             against eventsvc behind a proxy that adds
#                             50 ms to every request: serially twice and
#                             with -concurrency 8 twice, the default
#                             remote selection; the times and their ratio
#                             (BENCHFLAGS='-delay 20ms -rounds 3'; some
#                             three minutes; not part of make test)
#   make image                two OCI images, eventsvc (the reference
#                             server) and conformance (the suite), each a
#                             static binary on an empty base, run as
#                             65532:65532, tagged $(VERSION) and latest;
#                             prints their sizes (installs podman and
#                             buildah from Debian when they are missing;
#                             container/)
#   make measure              what catches each breakage written as a bug
#                             report (conformance/othersvc/bugreports_*.go):
#                             the scenarios of a default remote run and an
#                             exploration with seed 7, against each and
#                             against every correct variant (false
#                             alarms); a table and the counts (a minute or
#                             two; not part of make test)
#   make bench-backends       reads and grants with tokens in Redis and
#                             events in PostgreSQL, as ratios to the
#                             in-memory server of the same run, and the
#                             first, middle and last page of 1M events in
#                             PostgreSQL (needs redis-server and postgresql;
#                             some five minutes)

GO         ?= go
ADDR       ?= :8080
CONFIG     ?=
REPORT_DIR ?= $(or $(CONFORMANCE_REPORT_DIR),reports)
# A count of executions, not a duration: with a duration, go1.26's fuzzer
# can fail a target with "context deadline exceeded" as its time runs out
# on a loaded machine (golang/go#75804, fixed in Go 1.27).
FUZZTIME   ?= 3000x
BENCHTIME  ?= 3s
# Fuzz targets as package:Name; make fuzz FUZZTIME=5m for a long run.
FUZZ       := server/oauth:FuzzParseBasic server/oauth:FuzzBasicRoundTrip \
              server/oauth:FuzzParseForm server/oauth:FuzzExchange \
              server/event:FuzzDecode server:FuzzPageQuery

BENCHFLAGS ?=

# What a build says it is (package version, and the images' labels): git
# describe, the commit and the time of the build, unless given (make release
# VERSION=v1.2.0); each read once, so that every binary and label of one
# make run says the same.
VERSION ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
REVISION ?= $(shell git rev-parse HEAD 2>/dev/null)
DATE ?= $(shell date -u +%Y-%m-%dT%H:%M:%SZ)
VERSION := $(VERSION)
REVISION := $(REVISION)
DATE := $(DATE)
LDFLAGS := -s -w -X eventsvc/internal/version.Version=$(VERSION) -X eventsvc/internal/version.Revision=$(REVISION) -X eventsvc/internal/version.Date=$(DATE)
# make release: the platforms, as OS/ARCH, and the folder of the archives.
PLATFORMS ?= linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64
DIST ?= dist

# make image: the tool that builds them, the tags of both (image tags take
# no "+": a VERSION's build metadata is joined with "-" there), and the
# address of the sources for the org.opencontainers.image.source label (the
# origin remote, without any user or password it may hold).
PODMAN     ?= podman
IMAGE_TAGS ?= $(subst +,-,$(VERSION)) latest
SOURCE ?= $(shell git config --get remote.origin.url 2>/dev/null | sed -E 's#^([a-z+]+://)[^/@]*@#\1#')

.PHONY: run test vet fmt-check unit mutation measure default-runs fuzz explore conformance build release docs openapi-tools client-tools bench bench-suite bench-backends image clean

run:
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/eventsvc serve -addr $(ADDR) $(if $(CONFIG),-config $(CONFIG))

test: vet fmt-check unit fuzz

vet:
	$(GO) vet ./...

fmt-check:
	@out=$$(gofmt -l $$(git ls-files --cached --others --exclude-standard '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi

# The in-process suite runs here too (package ./suite); BASE_URL is
# cleared so that a deployment address in the environment is not used.
# The packages whose tests run whole suites and explorations against
# dozens of servers (SUITES) run without the race detector, under which,
# every answer audited, they take many minutes: their tests of what runs at
# once (RACE_ALSO) run under it, as does everything else: the in-process
# suite (its scenarios at once, the audit following links beside them, an
# exploration after them), two replicas of the race-built server on shared
# backends, explorations of the reference server four sequences at once,
# and actions sent together. The race-detected packages and the suites run
# side by side, the two processors kept busy; without the race detector,
# package suite also runs the breakages only exploration finds
# (make mutation runs them alone).
SUITES    := eventsvc/suite eventsvc/cmd/conformance eventsvc/conformance/explore
RACE_ALSO := ^(TestConformance|TestAnInProcessRunExploresOneServerAfterItsScenarios|TestTwoReplicasOnOneRedisAndOnePostgreSQL|TestExploringTheReferenceServerFindsNothing|TestActionsSentTogetherMeetAtTheTarget|TestTheReferenceServerTakesActionsSentTogether|TestWhatNoSerialOrderGivesIsFound|TestARotatingTargetMayRefuseTheSecondOfTwoRefreshesSentTogether)$$

unit:
	@export BASE_URL=; \
	$(GO) test -race -count=1 $$($(GO) list ./... | grep -v -x $(addprefix -e ,$(SUITES))) & race=$$!; \
	$(GO) test -race -count=1 -run '$(RACE_ALSO)' ./suite ./conformance/explore & also=$$!; \
	$(GO) test -count=1 -skip '$(RACE_ALSO)' $(SUITES); suites=$$?; \
	wait $$race; race=$$?; wait $$also; also=$$?; \
	[ $$race -eq 0 ] && [ $$suites -eq 0 ] && [ $$also -eq 0 ]

# The breakages of the reference server that only exploration finds, each
# run with the scenarios and with the default exploration budget, alone:
# unit runs them with the rest of package suite, without the race
# detector.
mutation:
	$(GO) test -count=1 -run '^TestExplorationFindsWhatTheScenariosMiss$$' ./suite

# What catches each bug report of the second implementation of the tests,
# and the false alarms on its correct variants (TestMeasureCatches): it
# fails when a result differs from what the bug report records as caught
# today. Without the race detector, as make mutation.
measure:
	MEASURE=1 $(GO) test -count=1 -v -run '^TestMeasureCatches$$' -timeout 30m ./suite

# The binary on its defaults, twice in a row, against bin/eventsvc on its
# defaults: both pass, each within about two minutes (some three minutes).
default-runs:
	DEFAULT_RUNS=1 $(GO) test -count=1 -v -run '^TestTheDefaultRunStaysGreenTwice$$' -timeout 15m ./cmd/conformance

# A short run of every fuzz target (their seed corpora also run in unit).
fuzz:
	@set -e; for t in $(FUZZ); do \
		echo "fuzz $${t#*:} for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$${t#*:}\$$" -fuzztime $(FUZZTIME) ./$${t%%:*} > /tmp/fuzz.$$$$.out 2>&1 \
			|| { cat /tmp/fuzz.$$$$.out; rm -f /tmp/fuzz.$$$$.out; exit 1; }; \
	done; rm -f /tmp/fuzz.$$$$.out

# The runner reads BASE_URL, CONTROL_URL, READ_ONLY and the CONFORMANCE_* variables
# itself; make passes those given on its command line or in the
# environment, unchanged.
conformance:
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/conformance

# Exploration: generated sequences against the same target, with the same
# variables, as make conformance (docs/explore.md); CONFORMANCE_SEED,
# CONFORMANCE_MAX_ACTIONS, CONFORMANCE_MAX_TIME, CONFORMANCE_MAX_EVENTS and
# CONFORMANCE_FAILED_LOGINS set its budget.
explore:
	$(GO) run -ldflags "$(LDFLAGS)" ./cmd/conformance explore

docs:
	$(GO) run ./cmd/docgen

# The versions of docs/openapi/lint/package-lock.json, exactly: those that run on
# Node 18.20.1 and later, as Debian 12 ships it (18.20.4); Redocly CLI 2
# and Prism 5.15 need Node 20.19 or 24. No install script runs: the only two of those
# packages are a banner and a usage report.
openapi-tools:
	npm ci --prefix docs/openapi/lint --ignore-scripts --no-audit --no-fund --loglevel=error

client-tools:
	npm ci --prefix eventsvctest/testdata/clients --ignore-scripts --no-audit --no-fund --loglevel=error

# Each row of BenchmarkBackends as a ratio to the in-memory server of the
# same run, then the page latencies of BenchmarkPostgresList1M.
bench-backends:
	@set -e; out=$$(mktemp); \
	$(GO) test -run '^$$' -bench '^BenchmarkBackends$$' -benchtime $(BENCHTIME) ./server > $$out; \
	$(GO) test -run '^$$' -bench '^BenchmarkPostgresList1M$$' -benchtime 50x -timeout 30m ./server/event >> $$out; \
	awk '/^BenchmarkBackends\// { split($$1, p, "/"); op = p[2]; be = p[3]; sub(/-[0-9]+$$/, "", be); \
	        ns[op, be] = $$3; if (!(op in seen)) { seen[op] = 1; ops[++n] = op } } \
	     /^BenchmarkPostgresList1M\// { sub(/^BenchmarkPostgresList1M\//, "", $$1); sub(/-[0-9]+$$/, "", $$1); pages[++m] = sprintf("  %-32s %8.2f ms", $$1, $$3 / 1e6) } \
	     END { print "one request through the server, time per request as a ratio to the in-memory server:"; \
	           printf "  %-6s %10s %10s %10s %16s\n", "", "memory", "redis", "postgres", "redis+postgres"; \
	           for (i = 1; i <= n; i++) { op = ops[i]; printf "  %-6s %7.0f µs", op, ns[op, "memory"] / 1000; \
	             printf " %9.2fx %9.2fx %15.2fx\n", ns[op, "redis"] / ns[op, "memory"], ns[op, "postgres"] / ns[op, "memory"], ns[op, "redis+postgres"] / ns[op, "memory"] } \
	           print "a page of 20 of 1,000,000 events in PostgreSQL (event.Postgres.List):"; \
	           for (i = 1; i <= m; i++) print pages[i] }' $$out; \
	rm -f $$out

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/eventsvc ./cmd/eventsvc
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/conformance ./cmd/conformance

# One archive a platform, eventsvc_VERSION_OS_ARCH.tar.gz (.zip for
# windows), holding a folder of the same name with both binaries (static:
# CGO_ENABLED=0; -trimpath), the README and the docs; then SHA256SUMS, in
# the form sha256sum -c reads. Only this target's files in DIST are
# replaced.
release:
	@set -e; \
	case " $(PLATFORMS) " in *" windows/"*) command -v zip >/dev/null 2>&1 || \
		{ echo "make release: the windows archives need zip (apt-get install zip), or leave windows out of PLATFORMS"; exit 1; };; esac; \
	if command -v sha256sum >/dev/null 2>&1; then sum="sha256sum"; else sum="shasum -a 256"; fi; \
	mkdir -p "$(DIST)"; dist=$$(cd "$(DIST)" && pwd); \
	rm -f "$$dist"/eventsvc_*.tar.gz "$$dist"/eventsvc_*.zip "$$dist"/SHA256SUMS; \
	tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	for p in $(PLATFORMS); do \
		os=$${p%/*}; arch=$${p#*/}; ext=; [ "$$os" != windows ] || ext=.exe; \
		name=eventsvc_$(VERSION)_$${os}_$${arch}; dir="$$tmp/$$name"; \
		echo "release $$name"; \
		mkdir -p "$$dir/docs/spec"; \
		for c in eventsvc conformance; do \
			CGO_ENABLED=0 GOOS=$$os GOARCH=$$arch $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o "$$dir/$$c$$ext" ./cmd/$$c; \
		done; \
		cp README.md "$$dir/"; cp docs/*.md "$$dir/docs/"; cp docs/spec/*.md "$$dir/docs/spec/"; \
		if [ "$$os" = windows ]; then (cd "$$tmp" && zip -qr "$$dist/$$name.zip" "$$name"); \
		else tar -C "$$tmp" -czf "$$dist/$$name.tar.gz" "$$name"; fi; \
	done; \
	cd "$$dist" && $$sum eventsvc_* > SHA256SUMS

bench:
	@command -v wrk >/dev/null 2>&1 || { \
		echo "installing wrk from Debian"; \
		sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
		export DEBIAN_FRONTEND=noninteractive; \
		$$sudo apt-get install -y -qq --no-install-recommends wrk >/dev/null 2>&1 || \
		{ $$sudo apt-get update -qq && $$sudo apt-get install -y -qq --no-install-recommends wrk >/dev/null; }; }
	$(GO) build -o bin/eventsvc ./cmd/eventsvc
	$(GO) build -o bin/barefiber ./cmd/barefiber
	$(GO) run ./cmd/bench $(BENCHFLAGS)

# The suite's binary as a CI job runs it, timed from outside (cmd/bench
# -suite): against a fresh eventsvc behind a proxy that adds 50 ms to
# every request, serially and with -concurrency 8, in turn.
bench-suite:
	$(GO) build -o bin/eventsvc ./cmd/eventsvc
	$(GO) build -o bin/conformance ./cmd/conformance
	$(GO) run ./cmd/bench -suite $(BENCHFLAGS)

# The images of container/: both binaries static (CGO_ENABLED=0, so that
# they run on an empty base) and without the paths of this machine, put in
# bin/image with the machine's CA certificates (the suite checks https
# deployments) and an empty folder for the suite's reports; then one
# podman build each, tagged with each of IMAGE_TAGS.
image:
	@need=; command -v $(PODMAN) >/dev/null 2>&1 || need=" podman buildah"; \
	[ -f /etc/ssl/certs/ca-certificates.crt ] || need="$$need ca-certificates"; \
	[ -z "$$need" ] || { \
		echo "installing$$need from Debian"; \
		sudo=; [ "$$(id -u)" = 0 ] || sudo=sudo; \
		export DEBIAN_FRONTEND=noninteractive; \
		$$sudo apt-get install -y -qq --no-install-recommends $$need >/dev/null 2>&1 || \
		{ $$sudo apt-get update -qq && $$sudo apt-get install -y -qq --no-install-recommends $$need >/dev/null; }; }
	@mkdir -p bin/image/reports
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/image/ ./cmd/eventsvc ./cmd/conformance
	@cp /etc/ssl/certs/ca-certificates.crt bin/image/ca-certificates.crt
	@set -e; for i in eventsvc conformance; do \
		$(PODMAN) build -q --layers=false -f container/$$i.Containerfile \
			--build-arg VERSION='$(VERSION)' --build-arg REVISION='$(REVISION)' \
			--build-arg CREATED='$(DATE)' --build-arg SOURCE='$(SOURCE)' \
			$(foreach t,$(IMAGE_TAGS),-t localhost/$$i:$(t)) bin/image >/dev/null; \
		echo "$(foreach t,$(IMAGE_TAGS),localhost/$$i:$(t)): $$($(PODMAN) image inspect --format '{{.Size}}' localhost/$$i:$(firstword $(IMAGE_TAGS)) | \
			awk '{ printf "%.1f MB", $$1 / 1e6 }')"; \
	done

clean:
	rm -rf bin $(REPORT_DIR) $(DIST)
