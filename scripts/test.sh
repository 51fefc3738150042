#!/usr/bin/env bash
# The project's test command: installs what the tests need (Debian packages),
# then runs vet, staticcheck and every Go test. Run as root on Debian.
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(python3-h5py python3-numpy python3-pandas python3-scipy python3-tables hdf5-tools fuse3 attr acl bsdutils python3-pil hdf5-filter-plugin hdf5-filter-plugin-blosc-serial hdf5-filter-plugin-zfp-serial bitshuffle python3-netcdf4 zstd)
missing=()
# node and npm run npm's h5wasm (libhdf5 2.0, test/h5wasm); NodeSource's nodejs bundles npm.
command -v node >/dev/null && command -v npm >/dev/null || pkgs+=(nodejs npm)
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
	echo "installing: ${missing[*]}"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

echo "== npm ci (test/h5wasm: libhdf5 2.0 for the tests)"
npm ci --prefix test/h5wasm --no-audit --no-fund

echo "== gofmt"
bad=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
if [ -n "$bad" ]; then echo "gofmt needed: $bad"; exit 1; fi
echo "== go vet"
go vet ./...
echo "== staticcheck"
go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
echo "== go test"
go test -count=1 -timeout 60m ./... "$@"
echo "== go test (test/fuse/duckdb: DuckDB over kernel mounts, a module of its own)"
(cd test/fuse/duckdb && go vet ./... && go test -count=1 -timeout 20m ./... "$@")
echo "== go test (arrowexport/duckdbtest: DuckDB reading rendered files, a module of its own)"
(cd arrowexport/duckdbtest && go vet ./... && go test -count=1 -timeout 20m ./... "$@")
