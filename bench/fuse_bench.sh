#!/usr/bin/env bash
# FUSE benchmarks: files read through an h5fs mount against h5py/pandas
# reading the same data, measured in the same run (best of RUNS each).
#
#   P1  cat x.raw > /dev/null, 1e8 float64, gzip 4 + shuffle  vs h5py ds[...]
#   P2  the same, contiguous uncompressed                       vs h5py ds[...]
#   P3  cat x.csv > /dev/null, NCSV float64                     vs pandas to_csv
#       (first open pays the CSV sizing pass: shown cold, then with the
#       sizing cache warm)
#   P5  ls -lR over 1000 tables x 20 columns, the first on a fresh mount
#       and again (warm); mount-ready time
#
# CASES="p1 p3" runs some of them; N, NCSV and RUNS set sizes and repeats.
# Every FUSE read is of a fresh mount, so the kernel page cache never
# serves it; the HDF5 files themselves are page-cached for both sides.
# Needs root and /dev/fuse. Data is made once in $BENCH_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-/tmp/h5fs-bench}
N=${N:-100000000}
NCSV=${NCSV:-10000000}
RUNS=${RUNS:-3}
CASES=${CASES:-p1 p2 p3 p5} # which cases to run
PY=/usr/bin/python3
mkdir -p "$BENCH_DIR"
$PY bench/fuse_bench_gen.py "$BENCH_DIR" "$N" "$NCSV"
BIN=$BENCH_DIR/h5fs
go build -o "$BIN" ./cmd/h5fs
MP=$(mktemp -d)
export XDG_CACHE_HOME=$BENCH_DIR/cache # the sizing cache, cleared for cold runs
pid=""
trap 'if [ -n "$pid" ]; then umount "$MP" 2>/dev/null || true; fi; rmdir "$MP"' EXIT

now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc -l; }

mount_it() { # mounts $1 at $MP; sets ready to the seconds until it answered
	local s
	s=$(now)
	"$BIN" mount "$1" "$MP" >/dev/null 2>"$BENCH_DIR/mount.log" &
	pid=$!
	until mountpoint -q "$MP"; do
		kill -0 "$pid" 2>/dev/null || { cat "$BENCH_DIR/mount.log"; exit 1; }
		sleep 0.01
	done
	ls "$MP" >/dev/null
	ready=$(since "$s")
}
unmount_it() { umount "$MP"; wait "$pid"; pid=""; }

fuse_time() { # best time of RUNS fresh mounts of $1 running: $2 (path under the mount)
	local b="" t s
	for _ in $(seq "$RUNS"); do
		[ "${COLD:-}" = 1 ] && rm -rf "$XDG_CACHE_HOME"
		mount_it "$1"
		s=$(now)
		sh -c "$2" >/dev/null
		t=$(since "$s")
		unmount_it
		if [ -z "$b" ] || (($(echo "$t < $b" | bc -l))); then b=$t; fi
	done
	echo "$b"
}

py_time() { # best in-process time of RUNS runs of python statement $2 on file $1
	$PY - "$1" "$RUNS" "$2" <<'PYEOF'
import sys, time, h5py, numpy as np, pandas as pd
f = h5py.File(sys.argv[1], "r")
ds = f["t/x"]
best = None
for _ in range(int(sys.argv[2])):
    s = time.perf_counter()
    exec(sys.argv[3])
    t = time.perf_counter() - s
    best = t if best is None or t < best else best
print(best)
PYEOF
}

row() { # name, reference seconds, h5fs seconds, bytes
	printf "%-34s %9.3f %9.3f %9.0f %7.2f\n" "$1" "$2" "$3" "$(echo "$4 / $3 / 1000000" | bc -l)" "$(echo "$2 / $3" | bc -l)"
}

for f in p1 p2 p3 p5; do cat "$BENCH_DIR/$f.h5" >/dev/null; done
printf "%-34s %9s %9s %9s %7s\n" case ref_s h5fs_s h5fs_MB/s ref/h5fs
want() { [[ " $CASES " == *" $1 "* ]]; }
for p in p1 p2; do
	want "$p" || continue
	tp=$(py_time "$BENCH_DIR/$p.h5" "a = ds[...]")
	tf=$(fuse_time "$BENCH_DIR/$p.h5" "cat $MP/t/x.raw")
	label="P1 cat x.raw gzip+shuffle (h5py)"
	[ "$p" = p2 ] && label="P2 cat x.raw uncompressed (h5py)"
	row "$label" "$tp" "$tf" "$((N * 8))"
done

if want p3; then
	mount_it "$BENCH_DIR/p3.h5"
csvbytes=$(wc -c <"$MP/t/x.csv")
unmount_it
tp=$(py_time "$BENCH_DIR/p3.h5" "import os; pd.DataFrame({'x': ds[...]}).to_csv(os.devnull, index=False)")
tc=$(COLD=1 fuse_time "$BENCH_DIR/p3.h5" "cat $MP/t/x.csv")
tw=$(fuse_time "$BENCH_DIR/p3.h5" "cat $MP/t/x.csv")
row "P3 cat x.csv, cold (pandas)" "$tp" "$tc" "$csvbytes"
row "P3 cat x.csv, sizes cached (pandas)" "$tp" "$tw" "$csvbytes"
fi
want p5 || exit 0

best() { # the lesser of $1 (may be empty) and $2
	if [ -z "$1" ] || (($(echo "$2 < $1" | bc -l))); then echo "$2"; else echo "$1"; fi
}
best_ready="" best_cold="" best_warm=""
for _ in $(seq "$RUNS"); do
	mount_it "$BENCH_DIR/p5.h5"
	best_ready=$(best "$best_ready" "$ready")
	s=$(now)
	ls -lR "$MP" >/dev/null
	best_cold=$(best "$best_cold" "$(since "$s")")
	s=$(now)
	ls -lR "$MP" >/dev/null
	best_warm=$(best "$best_warm" "$(since "$s")")
	n=$(find "$MP" -type f | wc -l)
	unmount_it
done
printf "P5 1000 tables x 20 columns (%d files): mount ready %.3f s; ls -lR first %.3f s, warm %.3f s\n" "$n" "$best_ready" "$best_cold" "$best_warm"
