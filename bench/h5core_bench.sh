#!/usr/bin/env bash
# End-to-end read benchmark for h5core (issue: h5core reader).
#
# Reads the same 1e8-element float64 dataset, (i) chunked 1e6 with
# gzip level 4 + shuffle and (ii) contiguous uncompressed, with
# `h5fs dump --raw > /dev/null` and with h5py `ds[...]`, median of RUNS runs
# each, and prints the speed ratio h5py_time / h5fs_time (> 1: h5fs is
# faster). Files are made once in $BENCH_DIR (default /tmp/h5fs-bench).
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-/tmp/h5fs-bench}
N=${N:-100000000}
RUNS=${RUNS:-3}
PY=/usr/bin/python3
mkdir -p "$BENCH_DIR"

$PY - "$BENCH_DIR" "$N" <<'PYEOF'
import sys, os, h5py, numpy as np
d, n = sys.argv[1], int(sys.argv[2])
specs = {"bench_gzip_shuffle.h5": dict(chunks=(1000000,), compression="gzip", compression_opts=4, shuffle=True),
         "bench_plain.h5": dict()}
for name, kw in specs.items():
    p = os.path.join(d, name)
    if os.path.exists(p):
        with h5py.File(p, "r") as f:
            if f["x"].shape == (n,):
                continue
    step = 10_000_000
    with h5py.File(p, "w") as f:
        ds = f.create_dataset("x", shape=(n,), dtype="f8", **kw)
        for s in range(0, n, step):
            i = np.arange(s, min(n, s + step), dtype=np.float64)
            ds[s:s + len(i)] = np.round(np.sin(i * 0.001) * 1000, 3)
    print("made", p, file=sys.stderr)
PYEOF

go build -o /tmp/h5fs-bench-bin ./cmd/h5fs

best() { # median wall time in seconds of RUNS runs of "$@"
	for _ in $(seq "$RUNS"); do
		local s e
		s=$(date +%s.%N)
		"$@" >/dev/null
		e=$(date +%s.%N)
		echo "$e - $s" | bc -l
	done | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'
}

h5py_read() { $PY -c "import h5py,sys; f=h5py.File(sys.argv[1],'r'); a=f['x'][...]; assert a.size==$N" "$1"; }

echo "load before: $(cut -d" " -f1-3 /proc/loadavg); RUNS=$RUNS, medians"
printf "%-22s %10s %10s %8s\n" dataset h5py_s h5fs_s ratio
for name in bench_gzip_shuffle bench_plain; do
	f="$BENCH_DIR/$name.h5"
	# warm the page cache so both readers see the same state
	cat "$f" >/dev/null
	tp=$(best h5py_read "$f")
	tg=$(best /tmp/h5fs-bench-bin dump --raw "$f" /x)
	printf "%-22s %10.3f %10.3f %7.2fx\n" "$name" "$tp" "$tg" "$(echo "$tp / $tg" | bc -l)"
done
# byte identity of what was timed
cmp <(/tmp/h5fs-bench-bin dump --raw "$BENCH_DIR/bench_gzip_shuffle.h5" /x) <($PY -c "import h5py,sys; sys.stdout.buffer.write(h5py.File(sys.argv[1],'r')['x'][...].astype('<f8').tobytes())" "$BENCH_DIR/bench_gzip_shuffle.h5") && echo "h5fs output == h5py bytes"
