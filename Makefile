# kino's tasks. `make run` and `make test` are the two commands a fresh
# machine needs; both install ffmpeg first when it is missing.
GO        ?= go
BUF       := $(GO) tool -modfile=tools/go.mod buf
LINT      := $(GO) tool -modfile=tools/go.mod golangci-lint
# server/app's tests start whole kinos and took 15 of the 20 minutes a
# package had under -race on two cores (2026-11-28): 40 leaves room.
TESTFLAGS ?= -race -timeout 40m

.PHONY: run test sdk-test sdk-typescript sdk-python sdk-generate deps generate check-generated lint fuzz bench build doc-frames console-shots psd-fixtures mockup-fixtures mockup-pictures demo-media

# The first build compiles every dependency (about a minute on two cores),
# so it says so rather than look hung.
run: deps
	@echo "building kino (the first build takes about a minute; later ones a few seconds)..."
	@$(GO) build -o bin/kino ./cmd/kino
	@echo "starting kino: ./bin/kino serve (Ctrl-C stops it)"
	./bin/kino serve

test: deps
	$(GO) test $(TESTFLAGS) ./...

build:
	$(GO) build -o bin/kino ./cmd/kino

# The client libraries of sdk/, each tested against a real kino its tests
# start (bin/kino), then packed and installed into an empty folder where
# its README example runs. npm ci installs the pinned dev dependencies of
# sdk/typescript/package-lock.json.
sdk-test: sdk-typescript sdk-python

sdk-typescript: build
	cd sdk/typescript && npm ci --no-audit --no-fund --silent
	cd sdk/typescript && KINO_BIN=$(CURDIR)/bin/kino npm test
	cd sdk/typescript && KINO_BIN=$(CURDIR)/bin/kino npm run pack-check

# The SDKs' types made again from gateway/apidocs/kino.swagger.json, after
# make generate changed it (their tests fail while they are stale).
sdk-generate:
	cd sdk/typescript && npm ci --no-audit --no-fund --silent && npm run generate
	cd sdk/python && $(PYTHON) gen_types.py

# Debian's Python (a pyenv one may come first on PATH), with its
# python3-setuptools, python3-wheel, python3-pip and mypy: no PyPI.
PYTHON ?= /usr/bin/python3
sdk-python: build
	cd sdk/python && $(PYTHON) -m mypy --strict src/kino
	cd sdk/python && KINO_BIN=$(CURDIR)/bin/kino $(PYTHON) -m unittest discover -s tests -v
	cd sdk/python && KINO_BIN=$(CURDIR)/bin/kino $(PYTHON) pack_check.py

# ffmpeg (with libass, freetype, fontconfig, pocketsphinx and flite), a
# default font, and the Noto fonts text falls back to (every script, colour
# emoji; see docs/compositions.md, Text), from Debian's packages.
NOTO = fonts-noto-core fonts-noto-cjk fonts-noto-color-emoji
deps:
	@if ! command -v ffmpeg >/dev/null || ! command -v ffprobe >/dev/null || [ -z "$$(fc-list 2>/dev/null)" ] \
		|| [ ! -e /usr/share/fonts/truetype/noto/NotoSans-Regular.ttf ] || [ ! -e /usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc ] \
		|| [ ! -e /usr/share/fonts/truetype/noto/NotoColorEmoji.ttf ]; then \
		echo "installing ffmpeg and fonts (apt-get)"; \
		apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ffmpeg fonts-dejavu-core $(NOTO) >/dev/null; \
	fi

# Everything generated comes from pinned tools in go.mod and tools/go.mod.
generate:
	$(BUF) generate
	$(GO) generate ./ent

check-generated: generate
	@git diff --exit-code -- gen ent gateway/apidocs || { echo "generated code is stale: run make generate and commit"; exit 1; }
	@test -z "$$(git status --porcelain -- gen ent gateway/apidocs)" || { git status --porcelain -- gen ent gateway/apidocs; echo "generated files are untracked: commit them"; exit 1; }

# golangci-lint's rules are in .golangci.yml (docs/testing.md says why):
# among them no time.Sleep, no unannotated panic, no package variables.
lint:
	$(BUF) lint
	$(BUF) format -d --exit-code
	$(GO) vet ./...
	$(LINT) run ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go' | grep -v '^gen/\|^ent/'))" || { gofmt -l $$(git ls-files '*.go' | grep -v '^gen/\|^ent/'); echo "gofmt needed"; exit 1; }

# Each newly interesting input is minimized for -fuzzminimizetime (60 s by
# default) before fuzzing goes on; with seeds of real media files that
# would take the whole run, so it is kept short.
FUZZTIME ?= 60s
fuzz:
	$(GO) test ./server/engine -run '^$$' -fuzz '^FuzzCompile$$' -fuzztime $(FUZZTIME)
	$(GO) test ./server/engine -run '^$$' -fuzz '^FuzzParseTranscript$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 2s
	$(GO) test ./server/ffmpeg -run '^$$' -fuzz '^FuzzReadContainer$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 2s
	$(GO) test ./server/psd -run '^$$' -fuzz '^FuzzDecode$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 2s
	$(GO) test ./server/mockup -run '^$$' -fuzz '^FuzzTemplate$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 2s
	$(GO) test ./server/psd -run '^$$' -fuzz '^FuzzDraw$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 2s
	$(GO) test ./server/composite -run '^$$' -fuzz '^FuzzWarp$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 2s
	$(GO) test ./server/rawcmd -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)

# The PSD reader's fixtures, written by the npm package ag-psd (pinned in
# server/psd/testdata/gen/package-lock.json) and a small writer beside it;
# the files are committed, so tests need neither Node nor the network.
psd-fixtures:
	cd server/psd/testdata/gen && npm ci --no-audit --no-fund && node make.js

# The pictures of docs/compositions.md: a frame of each example's render.
doc-frames:
	KINO_WRITE_DOC_FRAMES=1 $(GO) test ./server/app -run TestCompositionExamplesRender -count=1

# The PSD templates of server/mockup's tests, written by ag-psd (Node).
mockup-fixtures:
	cd server/mockup/testdata/gen && npm ci --silent && node make.js

# The pictures of docs/mockups.md, rendered by kino from those templates.
mockup-pictures:
	KINO_WRITE_MOCKUP_PICTURES=1 $(GO) test ./server/mockup -run TestDocPictures -count=1

console-shots:
	KINO_WRITE_CONSOLE_SHOTS=1 $(GO) test ./server/app -run TestConsole -count=1

bench: deps
	$(GO) run ./cmd/kinobench

# kino's demo media (server/demo/files, carried in the binary and served at
# /demo/), made offline with ffmpeg: flite speaks the talk.
demo-media:
	./tools/demo-media.sh
