# classproof. `make verify` runs the main job on the embedded reference launcher; `make test`
# passes the kit's own tests (unit, static checks for linux and darwin, and the suites).
GO      ?= go
GINKGO  := $(GO) run github.com/onsi/ginkgo/v2/ginkgo
# The CLI is built once per make into bin/ (go run would turn its exit 2 into 1): every target
# that runs it depends on the build.
CLASSPROOF := bin/classproof
SUITES  := $(wildcard suites/*/*_suite_test.go)
DARWIN_ARCHES := arm64 amd64

.PHONY: help rehearse rehearse-vm e2e tools tools-verify foreign bin/classproof bench bench-kit bench-verify bench-io bench-smoke verify verify-all verify-unprivileged soak layers test unit unit-paths static darwin darwin-rehearsal scripts lint required-specs required-specs-check specs-doc lanes gate suites red mutants mutants-first mutants-merge mutants-kit fuzz dist clean

# The lanes this machine can run.
ifeq ($(shell uname -s),Linux)
LANES := linux-idle linux-ignore
else
LANES := darwin
endif
comma := ,
.DEFAULT_GOAL := help
empty :=
space := $(empty) $(empty)

## help: every target and what it does, from the `##` lines above each (the default goal)
help:
	@awk '/^## [a-z/-]+:/ { sub(/^## /, ""); i = index($$0, ":"); printf "  %-22s%s\n", substr($$0, 1, i - 1), substr($$0, i + 1); next } \
	  /^## / { sub(/^## /, ""); printf "  %-22s %s\n", "", $$0 }' Makefile

## tools: what make verify and make test need beyond Go (ps, shellcheck, dash; for shmux on Linux,
## util-linux and python3), installed with apt-get or brew where missing, else named (ci/tools)
tools:
	@sh ci/tools

## tools-verify: what make verify needs beyond Go (ps)
tools-verify:
	@sh ci/tools verify

## foreign: the standing guard: each correct launcher in FOREIGN (default ../shared/foreign, one
## folder each, found by its manifests) runs in every lane it has a manifest for, one after
## another; any red fails it, named with launcher, lane, manifest, spec and first failure line
## (ci/foreign; reports in out/foreign; FOREIGN_FLAGS: more classproof run flags). A FOREIGN that
## does not exist is said and passes. What the launchers need is installed first (ci/tools foreign)
FOREIGN ?= ../shared/foreign
FOREIGN_FLAGS ?=
foreign: bin/classproof
	@if [ -d "$(FOREIGN)" ]; then sh ci/tools foreign; fi
	$(GO) run ./ci/foreign --dir "$(FOREIGN)" --cli $(CLASSPROOF) --out out/foreign -- $(FOREIGN_FLAGS)

## bin/classproof: the CLI, built once (go build is incremental)
bin/classproof:
	$(GO) build -o $@ ./cmd/classproof

## verify: the main job: every suite against refmux (embedded manifests), in each lane this
## machine has: on Linux, idle mode (refmux.yaml) and ignore mode (refmux-seed.yaml)
## (on Linux the two lanes run side by side, each printing its log when it ends; the suites, the
## harness and refmux are built once into the user's cache and shared). Each lane runs its specs
## on VERIFY_PROCS Ginkgo processes (default 2): the 3 s whole-life watch then overlaps other
## specs instead of adding to the lane; VERIFY_PROCS=1 runs them one at a time
VERIFY_PROCS ?= 2
verify: tools-verify bin/classproof
ifeq ($(shell uname -s),Linux)
	@mkdir -p out; \
	$(CLASSPROOF) run --procs $(VERIFY_PROCS) --out out/verify >out/verify.log 2>&1 & idle=$$!; \
	$(CLASSPROOF) run --procs $(VERIFY_PROCS) --target embedded:refmux-seed.yaml --out out/verify-seed >out/verify-seed.log 2>&1 & seed=$$!; \
	rc=0; wait $$idle || rc=1; cat out/verify.log; wait $$seed || rc=1; cat out/verify-seed.log; exit $$rc
else
	$(CLASSPROOF) run --procs $(VERIFY_PROCS) --out out/verify
endif

## verify-all: verify, plus the second reference launcher shmux (bash, Linux only) in its lane
verify-all: bin/classproof verify
ifeq ($(shell uname -s),Linux)
	$(CLASSPROOF) run --target embedded:shmux.yaml --out out/verify-shmux
endif

## verify-unprivileged: make verify as an unprivileged user would run it (GitHub's hosted runners
## do): run as root on Linux, on a copy of this tree owned by uid 65534 with its own HOME and Go
## caches, through setpriv (ci/unprivileged); run as any other user, the lanes of make test already
## are that rehearsal
verify-unprivileged:
ifeq ($(shell uname -s),Linux)
	@if [ "$$(id -u)" = 0 ]; then CLASSPROOF_UNPRIV_DELEGATE=both sh ci/unprivileged verify; \
	else echo "verify-unprivileged: uid $$(id -u) is not root: make test's lanes ran unprivileged already"; fi
else
	@echo "verify-unprivileged: Linux only (setpriv); macOS runners run every lane unprivileged"
endif

## rehearse: the kit where users run it, for real: make verify on a clean clone of HEAD in a
## Docker container (debootstrap bookworm, no registry) as root with Docker's defaults and as uid
## 1001, after the kernel packages' tests (ci/kernel-tests) there under Docker's seccomp profile;
## Linux, root or sudo; installs docker.io and debootstrap where missing and starts dockerd
## when none answers, stopping it after (ci/rehearse; .ci/run runs it, make test does not)
rehearse:
	sh ci/rehearse out/rehearse

## rehearse-vm: a GitHub hosted runner, for real: a qemu VM (Debian bookworm's 6.1 kernel,
## systemd, an unprivileged runner user with sudo) runs each Linux lane from HEAD's release
## archive as runner, plainly and through ci/delegate (which must give cgroup v2), as the reusable
## workflow does, after the kernel packages' tests as root and as runner (ci/kernel-tests, their
## skips listed against this host's); REHEARSE_VM_SUITE=./suites/cpuclass runs one suite
## (emulated: slow; ci/rehearse-vm)
REHEARSE_VM_SUITE ?=
rehearse-vm:
	sh ci/rehearse-vm out/rehearse-vm $(REHEARSE_VM_SUITE)

## soak: N runs (default 10) of each lane under CPU load and process churn; a table, and a
## non-zero exit on any failed spec or leak (not part of make test: it takes minutes)
N ?= 10
soak:
	sh ci/soak $(N)

## test: everything CI runs
test: tools static scripts lint darwin darwin-rehearsal required-specs-check unit e2e bench-smoke gate verify-unprivileged

## bench: the effect bench (about 2 minutes on 2 cores); reports, never asserts
bench: bin/classproof
	$(CLASSPROOF) bench --out out/bench

## bench-smoke: a few seconds of the bench and of the I/O bench, to keep them working (their
## figures mean nothing)
bench-smoke: bin/classproof
	$(CLASSPROOF) bench --smoke --out out/bench-smoke
	$(CLASSPROOF) bench --io --smoke --out out/bench-io-smoke

## bench-kit: the kit's own speed (a benchmark, never a test): where make verify spends its time,
## and the wall time of make verify (median of 3, warm and cold caches), make test and make
## mutants, written to docs/bench-kit.md (about 15 minutes)
bench-kit:
	$(GO) run ./ci/benchkit --out docs/bench-kit.md

## bench-verify: make verify at HEAD against BASE (default c7b0705), warm, alternating, on this
## machine: the medians, their ratio, and each lane's phases and long specs side by side; COLD=N
## adds N cold runs of each (empty Go, module and kit caches), alternating too
BASE ?= c7b0705
COLD ?= 0
bench-verify:
	$(GO) run ./ci/benchkit --against $(BASE) --cold $(COLD)

## bench-io: the I/O bench (about a minute): a foreground's small I/O under writers at each class
bench-io: bin/classproof
	$(CLASSPROOF) bench --io --out out/bench-io

## unit: the kit's fast unit tests (parsers, manifest checks, process tracking, the verdict code)
## and every example README.md and docs/ give (ci/docs: commands, manifests, workflow steps,
## adapters run for real); seconds, no lane runs; then unit-paths
unit:
	$(GO) test ./helpers/... ./cmd/... ./fixtures/... ./ci/...
	@$(MAKE) --no-print-directory unit-paths

## unit-paths: the packages that make, hand out or resolve paths, tested again with the temp folder
## in macOS's shapes: TMPDIR ending in "/" (macOS's does), then TMPDIR a symlink (macOS's /var is
## /private/var), so a path bug shows before a Mac sees it (about 20 s each on 2 cores). The
## folders are this user's, at a fixed place so that go test's cache still serves an unchanged run,
## and open as /tmp is (1777 below a 0711 folder): a root kit's launcher user passes through them
UNIT_PATHS := ./helpers/base/... ./helpers/manifest/... ./helpers/launcher/... ./helpers/binaries/... ./helpers/runner/... ./helpers/suite/... ./cmd/... ./fixtures/...
UNIT_PATHS_TOP := /tmp/classproof-unit-paths-$(shell id -u)
unit-paths:
	@set -e; top=$(UNIT_PATHS_TOP); mkdir -p -m 711 "$$top"; \
	  if [ -L "$$top" ] || [ ! -O "$$top" ]; then echo "unit-paths: $$top is not a folder of this user's" >&2; exit 1; fi; \
	  chmod 711 "$$top"; mkdir -p "$$top/real" "$$top/slash"; chmod 1777 "$$top/real" "$$top/slash"; \
	  ln -sfn "$$top/real" "$$top/link"; \
	  for t in "$$top/slash/" "$$top/link"; do \
	    echo "TMPDIR=$$t go test -timeout 5m $(UNIT_PATHS)"; TMPDIR="$$t" $(GO) test -timeout 5m $(UNIT_PATHS); \
	  done

## e2e: the kit's end-to-end tests (files *_e2e_test.go, build tag e2e): whole runs, red/green
## proofs, the gate on real reports, hostile launchers, interrupts, go run from another repository;
## minutes (the unit tests run again with them: seconds). The timeout only stops a hang: the runner's
## package alone took 17 min on a 2-core machine, and a slower or busier one must not fail for that
e2e:
	$(GO) test -tags e2e -timeout 45m ./helpers/... ./cmd/...

## static: gofmt, go vet on linux, the import layers (ci/layers.rules), staticcheck's default
## checks plus ST1000 (true package comments) for linux and for darwin (staticcheck.conf), the code's sizes
## (ci/size: no function in helpers/, cmd/ or fixtures/refmux/ over 60 lines, no file in helpers/
## over 400), and docs/specs.md made from the suites as they are (ci/specsdoc --check: a dry run)
static: layers
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet -tags e2e ./...
	$(GO) tool staticcheck -tags e2e ./...
	$(GO) build -o bin/staticcheck honnef.co/go/tools/cmd/staticcheck
	@for a in $(DARWIN_ARCHES); do echo "GOOS=darwin GOARCH=$$a bin/staticcheck -tags e2e ./..."; GOOS=darwin GOARCH=$$a bin/staticcheck -tags e2e ./... || exit 1; done
	$(GO) run ./ci/size
	$(GO) run ./ci/specsdoc --check

## specs-doc: remake docs/specs.md, the spec catalogue, from a dry run of the suites (each spec's
## seed or convention label and needs), ci/required-specs.yaml, ci/mutants-first.tsv and the prose
## and hand-kept notes in ci/specsdoc/ (review the diff); make static fails when it is stale
specs-doc:
	$(GO) run ./ci/specsdoc

## darwin: macOS code compiles and vets, and every suite's test binary builds (compiled, not run)
darwin:
	@set -e; for arch in $(DARWIN_ARCHES); do \
	  echo "GOOS=darwin GOARCH=$$arch go vet -tags e2e ./..."; GOOS=darwin GOARCH=$$arch $(GO) vet -tags e2e ./...; \
	  GOOS=darwin GOARCH=$$arch $(GO) build -o /dev/null ./cmd/classproof ./fixtures/refmux ./fixtures/harness; \
	  for s in $(dir $(SUITES)); do \
	    echo "GOOS=darwin GOARCH=$$arch go test -c ./$$s"; \
	    GOOS=darwin GOARCH=$$arch $(GO) test -c -o /dev/null ./$$s; \
	  done; \
	done

## layers: the import layers hold (ci/layers.rules, one line per level: the CLI side links no
## Ginkgo DSL or Gomega, helpers/ never imports fixtures/), and every import block is goimports'
layers:
	$(GO) run ./ci/layers

## scripts: what runs on a macOS runner's shell is POSIX sh (bash 3.2 there, BSD userland):
## shellcheck -s sh, and ci/lane's command lines checked under dash
scripts:
	shellcheck -s sh ci/lane ci/lane-check ci/record-ps ci/soak ci/tools ci/fetch-release ci/unprivileged ci/delegate ci/rehearse ci/rehearse-vm ci/kernel-tests
	dash -n ci/rehearse
	dash -n ci/rehearse-vm
	dash -n ci/kernel-tests
	shellcheck -s bash fixtures/shmux/shmux
	CLASSPROOF_TEST_SHELL=dash dash ci/lane-check
	dash ci/tools
	dash ci/tools foreign
	dash ci/delegate true
	mkdir -p out && dash ci/record-ps out/ps-recorded.txt >/dev/null

## darwin-rehearsal: the darwin lane's own command (ci/lane darwin, under dash) as a Ginkgo dry
## run here: its label filter must select exactly the darwin specs ci/required-specs.yaml lists.
## Nothing runs, so nothing about macOS is proved: that needs a macOS runner.
darwin-rehearsal: bin/classproof
	rm -rf out/rehearsal
	CLASSPROOF_REPORTS=out/rehearsal dash ci/lane darwin --dry-run
	$(CLASSPROOF) required-specs --rehearsal out/rehearsal/darwin

## lint: the GitHub workflows, with actionlint at the version go.mod pins
lint:
	$(GO) run github.com/rhysd/actionlint/cmd/actionlint .github/workflows/*.yml ci/workflows/*.yml

## required-specs: remake ci/required-specs.yaml from a dry run of every lane (review the diff)
required-specs: bin/classproof
	$(CLASSPROOF) required-specs

## required-specs-check: fail when ci/required-specs.yaml and the suites disagree
required-specs-check: bin/classproof
	$(CLASSPROOF) required-specs --check

## lanes: each lane this machine has, as CI runs it (ci/lane), reports in out/lanes/LANE. A failing
## lane does not stop the others: the gate reads every report and decides.
lanes: bin/classproof
	@rm -rf out/lanes; for l in $(LANES); do ci/lane $$l || echo "lane $$l failed; the gate will say why"; done

## gate: the lanes, then the release gate over their reports
gate: bin/classproof lanes
	$(CLASSPROOF) gate --reports out/lanes --lanes $(subst $(space),$(comma),$(LANES))

## suites: alias of lanes
suites: lanes

## red: the suites against a known-broken refmux (VARIANT=noclass by default); it must fail
VARIANT ?= noclass
red: bin/classproof
	@if $(CLASSPROOF) run --var variant=$(VARIANT) --out out/red-$(VARIANT); then \
	  echo "red run against variant $(VARIANT) PASSED: the suites did not catch it"; exit 1; \
	else echo "red run against variant $(VARIANT) failed, as it must (see out/red-$(VARIANT)/report.json)"; fi

## mutants: the kill matrix: the suites against every refmux variant, on each lane this machine has
## (the full table). MUTANTS_FLAGS=--until-caught stops each variant's lane at its first catch (the
## gate's yes/no, sooner); SHARD=K/N runs share K of N of each matrix and writes its parts
## (out/mutants*/part-K-of-N.json), which make mutants-merge PARTS=DIR joins (docs/results.md)
MUTANT_TARGETS := --target embedded:refmux.yaml
MUTANTS_INJECT :=
ifeq ($(shell uname -s),Linux)
MUTANT_TARGETS += --target embedded:refmux-seed.yaml
## (on Linux a row per injected fault too: each class system call made a silent success)
MUTANTS_INJECT := --inject all
endif
MUTANTS_FLAGS ?=
## (under --until-caught each variant tries first, on each lane, the spec ci/mutants-first.tsv names
## for it: a full table's first.tsv, remade by make mutants-first; a variant it misses meets every spec)
MUTANTS_FIRST ?= ci/mutants-first.tsv
MUTANTS_ALL := $(MUTANTS_INJECT) $(MUTANTS_FLAGS) $(if $(SHARD),--shard $(SHARD)) $(if $(findstring --until-caught,$(MUTANTS_FLAGS)),--first $(MUTANTS_FIRST))
## (on Linux refmux's matrix and shmux's run side by side, each --jobs 2, each printing its log
## when it ends; four lanes on a 2-core machine once made shmux's reference miss its 10 s session
## answer, a false red, so the side-by-side run doubles the timeouts unless
## CLASSPROOF_TIME_SCALE says otherwise: every variant is caught by an assertion, not a timeout)
mutants: bin/classproof
	@mkdir -p out
	$(GO) run ./fixtures/refmux variants > out/variants.tsv
ifeq ($(shell uname -s),Linux)
	@fixtures/shmux/shmux variants > out/shmux-variants.tsv; \
	CLASSPROOF_TIME_SCALE=$${CLASSPROOF_TIME_SCALE:-2}; export CLASSPROOF_TIME_SCALE; \
	$(CLASSPROOF) mutants --values-file out/variants.tsv $(MUTANT_TARGETS) $(MUTANTS_ALL) --out out/mutants >out/mutants.log 2>&1 & ref=$$!; \
	$(CLASSPROOF) mutants --values-file out/shmux-variants.tsv --target embedded:shmux.yaml $(MUTANTS_ALL) --out out/mutants-shmux >out/mutants-shmux.log 2>&1 & sh=$$!; \
	rc=0; wait $$ref || rc=1; cat out/mutants.log; wait $$sh || rc=1; cat out/mutants-shmux.log; exit $$rc
else
	$(CLASSPROOF) mutants --values-file out/variants.tsv $(MUTANT_TARGETS) $(MUTANTS_ALL) --out out/mutants
endif

## mutants-first: remake ci/mutants-first.tsv from the first.tsv a full make mutants wrote beside
## each matrix (for each variant caught in a lane, one spec that caught it there)
mutants-first:
	@test -f out/mutants/first.tsv || { echo "make mutants-first: no out/mutants/first.tsv: run a full make mutants first" >&2; exit 2; }
	{ cat out/mutants/first.tsv; if [ -f out/mutants-shmux/first.tsv ]; then grep -v '^#' out/mutants-shmux/first.tsv; fi; } > $(MUTANTS_FIRST).new && mv $(MUTANTS_FIRST).new $(MUTANTS_FIRST)

## mutants-merge: join the parts of one matrix that make mutants SHARD=K/N wrote, found under
## PARTS (every runner's out/ folder), into out/MATRIX/ (MATRIX: mutants, or on Linux mutants-shmux)
PARTS ?= parts
MATRIX ?= mutants
mutants-merge: bin/classproof
	$(CLASSPROOF) mutants merge --out out/$(MATRIX) $$(find $(PARTS) -path '*/$(MATRIX)/part-*-of-*.json' | sort)

## mutants-kit: mutation testing of the kit's own verdict code (gremlins, pinned in go.mod) against
## its fast unit tests; ends `kit mutation score: K killed of M (P %)`; a survivor must be killed
## or explained in ci/kit-survivors.txt (docs/mutants-kit.md)
mutants-kit:
	$(GO) run ./ci/mutantskit

## fuzz: every fuzz target (func Fuzz* in a _test.go) for FUZZTIME each; a failing input is kept
## under the package's testdata/fuzz/ and runs with the unit tests from then on
FUZZTIME ?= 10s
fuzz:
	@set -e; for f in $$(grep -rl --include='*_test.go' '^func Fuzz' helpers fixtures cmd | sort); do \
	  for fn in $$(sed -n 's/^func \(Fuzz[A-Za-z0-9_]*\)(.*/\1/p' "$$f"); do \
	    echo "fuzz: $$fn ($$(dirname "$$f")) for $(FUZZTIME)"; \
	    $(GO) test -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 10s "./$$(dirname "$$f")"; \
	  done; \
	done

## dist: the kit prebuilt for darwin/arm64, darwin/amd64, linux/amd64 and linux/arm64, one
## reproducible archive each plus checksums.txt, in dist/ (ci/dist; VERSION=... names the release)
dist:
	$(GO) run ./ci/dist $(if $(VERSION),--version $(VERSION))

clean:
	rm -rf out dist
