#!/usr/bin/env bash
# Sparse write benchmark (issue 9 item 6): 1e6 random elements of a
# 1e5 x 1e5 float64 matrix defined in batches of 1e4, committed (durable)
# after every batch, in one run:
#
#   writer  sparsecoo.Writer in process (BenchmarkSparseWrite: one
#           Define + Commit per batch on a structured-chunk sparse dataset
#           of chunks of 100 full rows, empty at the start)
#   mount   the same batches appended to X/coo.csv of an h5fs -o rw mount,
#           one open/append/close (= commit) per batch
#   h5py    h5py + scipy the anndata way: X/data, X/indices, X/indptr of a
#           csr_matrix rewritten after every batch (matrix + batch in
#           scipy, datasets deleted and written anew, flush + fsync)
#
# The elements and the empty file are made once in $BENCH_DIR by the Go
# benchmark. Prints, for each, elements/s (wall), elements per CPU second
# (user + system of the writing process: h5py's Python, the Go benchmark,
# the h5fs mount process; steadier than wall time on a shared machine,
# and blind to fsync waits) and the final file size, with the ratios
# h5fs / (h5py+scipy) (> 1: h5fs is faster); the load average before and
# after. Needs root and /dev/fuse for
# the mount case (skipped otherwise, with a message).
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-/tmp/h5fs-sparse-write-bench}
PY=/usr/bin/python3
mkdir -p "$BENCH_DIR"
echo "load before: $(cut -d" " -f1-3 /proc/loadavg)"

go_out=$(SPARSE_WRITE_BENCH_DIR="$BENCH_DIR" go test -run '^$' -bench 'BenchmarkSparseWrite$' -benchtime 1x ./sparsecoo)
echo "$go_out" | grep '^Benchmark'
metric() { echo "$go_out" | awk -v m="$1" '/^BenchmarkSparseWrite/ {for (i=1;i<=NF;i++) if ($(i+1)==m) print $i}'; }
go_eps=$(metric elements/s)
go_cps=$(metric elements/cpu-s)
go_size=$(metric file-bytes)

mount_eps=""
if [ -e /dev/fuse ] && [ "$(id -u)" = 0 ]; then
	BIN=$BENCH_DIR/h5fs
	go build -o "$BIN" ./cmd/h5fs
	cp "$BENCH_DIR/empty.h5" "$BENCH_DIR/mount.h5"
	MP=$(mktemp -d)
	"$BIN" mount -f -o rw "$BENCH_DIR/mount.h5" "$MP" >/dev/null 2>"$BENCH_DIR/mount.log" &
	pid=$!
	trap 'umount "$MP" 2>/dev/null || true; rmdir "$MP"' EXIT
	until mountpoint -q "$MP"; do
		kill -0 "$pid" 2>/dev/null || { cat "$BENCH_DIR/mount.log"; exit 1; }
		sleep 0.01
	done
	cpu0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
	read -r mount_eps < <($PY - "$BENCH_DIR/batches" "$MP/X/coo.csv" <<'PYEOF'
import glob, os, sys, time
batches = [open(p, "rb").read() for p in sorted(glob.glob(os.path.join(sys.argv[1], "*.csv")))]
n = sum(b.count(b"\n") for b in batches)
t = time.perf_counter()
for b in batches:
    with open(sys.argv[2], "ab") as f:
        f.write(b)
print(n / (time.perf_counter() - t))
PYEOF
)
	mount_cps=$(echo "1000000 / (($(awk '{print $14 + $15}' "/proc/$pid/stat") - $cpu0) / $(getconf CLK_TCK))" | bc -l)
	lines=$(($(wc -l <"$MP/X/coo.csv") - 1))
	umount "$MP"
	wait "$pid"
	trap 'rmdir "$MP"' EXIT
	[ "$lines" = 1000000 ] || { echo "coo.csv has $lines elements after the mount run, want 1000000"; exit 1; }
	mount_size=$(stat -c %s "$BENCH_DIR/mount.h5")
else
	echo "mount case skipped: needs root and /dev/fuse"
fi

read -r py_eps py_cps py_size < <($PY - "$BENCH_DIR" <<'PYEOF'
import glob, os, sys, time
import h5py, numpy as np, scipy.sparse
d, n = sys.argv[1], 100000
batches = [np.loadtxt(p, delimiter=",", ndmin=2) for p in sorted(glob.glob(os.path.join(d, "batches", "*.csv")))]
p = os.path.join(d, "anndata.h5")
t, c = time.perf_counter(), time.process_time()
with h5py.File(p, "w") as f:
    g = f.create_group("X")
    g.attrs["encoding-type"] = "csr_matrix"
    g.attrs["encoding-version"] = "0.1.0"
    g.attrs["shape"] = np.array((n, n), dtype=np.int64)
    m = scipy.sparse.csr_matrix((n, n), dtype=np.float64)
    for b in batches:
        m = m + scipy.sparse.csr_matrix((b[:, 2], (b[:, 0].astype(np.int64), b[:, 1].astype(np.int64))), shape=(n, n))
        for k in ("data", "indices", "indptr"):
            if k in g:
                del g[k]
        g["data"], g["indices"], g["indptr"] = m.data, m.indices.astype(np.int64), m.indptr.astype(np.int64)
        f.flush()
        fd = os.open(p, os.O_RDONLY)
        os.fsync(fd)
        os.close(fd)
el, cpu = time.perf_counter() - t, time.process_time() - c
assert m.nnz == 1000000, m.nnz
print(m.nnz / el, m.nnz / cpu, os.path.getsize(p))
PYEOF
)
echo "load after: $(cut -d" " -f1-3 /proc/loadavg)"
ratio() { echo "$1 / $2" | bc -l; }
printf '%-28s %12s %9s %14s %9s %14s\n' case elements/s vs_h5py elements/cpu-s vs_h5py file_bytes
printf '%-28s %12.4g %9s %14.4g %9s %14d\n' "h5py+scipy (anndata CSR)" "$py_eps" 1 "$py_cps" 1 "$py_size"
printf '%-28s %12.4g %9.3f %14.4g %9.3f %14d\n' "h5fs sparsecoo.Writer" "$go_eps" "$(ratio "$go_eps" "$py_eps")" "$go_cps" "$(ratio "$go_cps" "$py_cps")" "$go_size"
if [ -n "$mount_eps" ]; then
	printf '%-28s %12.4g %9.3f %14.4g %9.3f %14d\n' "h5fs mount coo.csv" "$mount_eps" "$(ratio "$mount_eps" "$py_eps")" "$mount_cps" "$(ratio "$mount_cps" "$py_cps")" "$mount_size"
fi
