#!/usr/bin/env bash
# Sparse rendering benchmark (sparse datasets).
#
# One run: the Go benchmarks BenchmarkSparseCOO and BenchmarkSparseCSR
# (arrowexport) render a 100000 x 1000 float64 matrix with ~1.07e7 defined
# elements stored as an HDF5 structured-chunk sparse dataset (written once
# by internal/sparsetest into $BENCH_DIR, with its CSR arrays as npy),
# from a fresh open each time: COO = the row/col/value columns unit by
# unit (what coo.csv/.arrow/.parquet render from), CSR = the three npy
# views. The same matrix is stored anndata-style (group X with data,
# indices, indptr, encoding-type csr_matrix) with h5py and read with
# h5py + scipy (csr_matrix for CSR, .tocoo() for COO), median of $RUNS
# runs of each side. Prints the load average before and after, defined
# elements/s of each and the ratio h5fs / (h5py+scipy) (> 1: h5fs is
# faster), and the CPU time (user and system, all threads) each spent
# per build, which a busy machine disturbs less than wall time.
# BenchmarkSparseStored gives the ceiling: every stored chunk read,
# section 0 verified and decoded, no view rendered, on every core.
#
# Then the views as a reader gets them: each of RUNS fresh mounts of the
# file (the kernel's page cache never serves a view; the sizing cache
# cleared: first reads) times one `cat` of csr/indptr.npy, csr/indices.npy
# and csr/data.npy (against h5py+scipy's CSR) or of one of coo.arrow,
# coo.parquet and coo.csv (against h5py+scipy's COO), median of the runs,
# the mount's first listing and the matrix's opening inside the timing;
# and the mount's ceiling for the CSR bytes: a cat of x.raw of a
# contiguous uncompressed dataset of as many bytes (flat.h5, made once),
# nothing rendered. Needs root and /dev/fuse.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-/tmp/h5fs-sparse-bench}
RUNS=${RUNS:-3}
PY=/usr/bin/python3
mkdir -p "$BENCH_DIR"

echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
go_out=$(SPARSE_BENCH_DIR="$BENCH_DIR" go test -run '^$' -bench 'BenchmarkSparse(COO|CSR|Stored)$' -benchtime 1x -count "$RUNS" ./arrowexport)
echo "$go_out" | grep '^Benchmark'
# median over the runs of benchmark $1's metric $2
go_median() {
	echo "$go_out" | awk -v b="^$1" -v u="$2" '$0 ~ b {for (i=1;i<=NF;i++) if ($(i+1)==u) print $i}' | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'
}
go_coo=$(go_median BenchmarkSparseCOO elements/s)
go_csr=$(go_median BenchmarkSparseCSR elements/s)
go_coo_cpu=$(go_median BenchmarkSparseCOO cpu-s/op)
go_csr_cpu=$(go_median BenchmarkSparseCSR cpu-s/op)
go_stored=$(go_median BenchmarkSparseStored elements/s)
go_stored_cpu=$(go_median BenchmarkSparseStored cpu-s/op)

read -r py_coo py_csr py_coo_cpu py_csr_cpu nnz < <($PY - "$BENCH_DIR" "$RUNS" <<'PYEOF'
import os, sys, time
import h5py, numpy as np, scipy.sparse
d, runs = sys.argv[1], int(sys.argv[2])
p = os.path.join(d, "anndata.h5")
indptr = np.load(os.path.join(d, "indptr.npy"))
shape = (len(indptr) - 1, 1000)
if not os.path.exists(p):
    with h5py.File(p + ".tmp", "w") as f:
        g = f.create_group("X")
        g.attrs["encoding-type"] = "csr_matrix"
        g.attrs["encoding-version"] = "0.1.0"
        g.attrs["shape"] = np.array(shape, dtype=np.int64)
        g["data"] = np.load(os.path.join(d, "data.npy"))
        g["indices"] = np.load(os.path.join(d, "indices.npy"))
        g["indptr"] = indptr
    os.rename(p + ".tmp", p)
flat = os.path.join(d, "flat.h5") # the CSR arrays' element count, contiguous
if not os.path.exists(flat):
    with h5py.File(flat + ".tmp", "w") as f:
        f["x"] = np.arange(len(indptr) + 2 * int(indptr[-1]), dtype=np.float64)
    os.rename(flat + ".tmp", flat)
def load():
    with h5py.File(p, "r") as f:
        g = f["X"]
        return scipy.sparse.csr_matrix((g["data"][:], g["indices"][:], g["indptr"][:]), shape=tuple(g.attrs["shape"]))
ts_csr, ts_coo, cpu_csr, cpu_coo = [], [], [], []
for _ in range(runs):
    t, u = time.perf_counter(), time.process_time(); m = load()
    ts_csr.append(time.perf_counter() - t); cpu_csr.append(time.process_time() - u)
    t, u = time.perf_counter(), time.process_time(); c = load().tocoo()
    ts_coo.append(time.perf_counter() - t); cpu_coo.append(time.process_time() - u)
import statistics
print(c.nnz / statistics.median_high(ts_coo), m.nnz / statistics.median_high(ts_csr),
      statistics.median_high(cpu_coo), statistics.median_high(cpu_csr), m.nnz)
PYEOF
)
printf 'COO: h5fs %.3g elements/s, h5py+scipy %.3g elements/s, ratio %.2f (CPU per build: h5fs %.3f s, h5py+scipy %.3f s)\n' "$go_coo" "$py_coo" "$(echo "$go_coo / $py_coo" | bc -l)" "$go_coo_cpu" "$py_coo_cpu"
printf 'CSR: h5fs %.3g elements/s, h5py+scipy %.3g elements/s, ratio %.2f (CPU per build: h5fs %.3f s, h5py+scipy %.3f s)\n' "$go_csr" "$py_csr" "$(echo "$go_csr / $py_csr" | bc -l)" "$go_csr_cpu" "$py_csr_cpu"
printf 'ceiling (stored chunks read and verified, nothing rendered): %.3g elements/s (CPU per pass %.3f s); COO at %.0f%%, CSR at %.0f%% of its speed, at %.0f%% and %.0f%% of its CPU efficiency\n' "$go_stored" "$go_stored_cpu" \
	"$(echo "100 * $go_coo / $go_stored" | bc -l)" "$(echo "100 * $go_csr / $go_stored" | bc -l)" \
	"$(echo "100 * $go_stored_cpu / $go_coo_cpu" | bc -l)" "$(echo "100 * $go_stored_cpu / $go_csr_cpu" | bc -l)"

# through the mount
BIN=$BENCH_DIR/h5fs
go build -o "$BIN" ./cmd/h5fs
MP=$(mktemp -d)
export XDG_CACHE_HOME=$BENCH_DIR/cache
pid=""
trap 'if [ -n "$pid" ]; then umount "$MP" 2>/dev/null || true; fi; rmdir "$MP"' EXIT
mount_it() { # mounts file $1 at $MP
	rm -rf "$XDG_CACHE_HOME"
	"$BIN" mount -f "$1" "$MP" >/dev/null 2>"$BENCH_DIR/mount.log" &
	pid=$!
	until mountpoint -q "$MP"; do
		kill -0 "$pid" 2>/dev/null || { cat "$BENCH_DIR/mount.log"; exit 1; }
		sleep 0.01
	done
}
unmount_it() { umount "$MP"; wait "$pid"; pid=""; }
mount_time() { # median seconds of RUNS fresh mounts of file $1 catting the views $3... in its directory $2
	local file=$1 dir=$2
	shift 2
	for _ in $(seq "$RUNS"); do
		mount_it "$file"
		s=$(date +%s.%N)
		(cd "$MP/$dir" && cat "$@" >/dev/null)
		echo "$(date +%s.%N) - $s" | bc -l
		unmount_it
	done | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}'
}
mount_row() { # label, seconds, baseline elements/s
	printf '%s: %.3f s, %.3g elements/s, ratio %.2f\n' "$1" "$2" "$(echo "$nnz / $2" | bc -l)" "$(echo "$nnz / $2 / $3" | bc -l)"
}
sb=$BENCH_DIR/sparse_bench.h5
t_csr=$(mount_time "$sb" X csr/indptr.npy csr/indices.npy csr/data.npy)
mount_row "CSR mount (cat csr/*.npy) vs h5py+scipy CSR" "$t_csr" "$py_csr"
# the mount's ceiling for the CSR bytes: as many bytes stored contiguous,
# uncompressed (flat.h5 /x)
t_flat=$(mount_time "$BENCH_DIR/flat.h5" . x.raw)
printf 'mount ceiling (cat x.raw of as many bytes stored contiguous, nothing rendered): %.3f s; CSR mount at %.0f%% of its speed\n' "$t_flat" "$(echo "100 * $t_flat / $t_csr" | bc -l)"
for v in coo.arrow coo.parquet coo.csv; do
	mount_row "COO mount (cat $v) vs h5py+scipy COO" "$(mount_time "$sb" X "$v")" "$py_coo"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
