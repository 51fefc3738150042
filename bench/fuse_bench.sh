#!/usr/bin/env bash
# FUSE benchmarks: files read through an h5fs mount against h5py/pandas
# reading the same data, measured in the same run (median of RUNS each; the load average
# before and after is printed, since the machine may be shared).
#
#   P1  cat x.raw > /dev/null, 1e8 float64, gzip 4 + shuffle  vs h5py ds[...]
#   P2  the same, contiguous uncompressed                       vs h5py ds[...]
#   P3  cat x.csv > /dev/null, NCSV float64                     vs pandas to_csv
#       (first open pays the CSV sizing pass: shown cold, then with the
#       sizing cache warm)
#   P4  DuckDB over t.parquet of an N4-row table (s int64 sorted, x and y
#       float64; chunks C4; a CHUNK_MINMAX index on each column)
#       vs the same query on Parquet files DuckDB wrote from the same data
#       (its default, snappy, and uncompressed as h5fs writes it):
#       a) SELECT sum(x), cold (the sizing cache cleared: the first open
#          lays the file out from the indexes) and with the sizing cache
#          warm; targets <= 3x and <= 1.3x native (snappy)
#       b) SELECT count(*) WHERE s BETWEEN: 1% of the rows, not aligned to
#          chunks; the bytes h5fs reads (rchar of its process) against a
#          scan of s; target <= 5% of the column's chunks
#   P5  ls -lR over 1000 tables x 20 columns, the first on a fresh mount
#       and again (warm); mount-ready time
#   P7  peak RSS (VmHWM) of h5fs while cat streams x.raw and x.arrow of an
#       N7 float64 column (gzip+shuffle, and uncompressed), and x.csv of
#       p4.h5's x (CSV is slow: a smaller column); target <= 256 MB
#
# CASES="p1 p3" runs some of them; N, NCSV, N4, C4, N7 and RUNS set sizes
# and repeats. Every FUSE read is of a fresh mount, so the kernel page
# cache never serves it; the HDF5 files themselves are page-cached for both
# sides. DuckDB runs in bench's duckq (test/fuse/duckdb/cmd/duckq), timed
# inside the process on both sides. Needs root and /dev/fuse. Data is made
# once in $BENCH_DIR.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-/tmp/h5fs-bench}
N=${N:-100000000}
NCSV=${NCSV:-10000000}
N4=${N4:-50000000}
C4=${C4:-500000}
N7=${N7:-500000000}
RUNS=${RUNS:-3}
CASES=${CASES:-p1 p2 p3 p4 p5 p7} # which cases to run
PY=/usr/bin/python3
mkdir -p "$BENCH_DIR"
gen=$CASES
[[ " $CASES " == *" p7 "* ]] && gen="$gen p4" # P7's CSV reads p4.h5
$PY bench/fuse_bench_gen.py "$BENCH_DIR" "$N" "$NCSV" "$N4" "$C4" "$N7" $gen
BIN=$BENCH_DIR/h5fs
go build -o "$BIN" ./cmd/h5fs
DUCKQ=$BENCH_DIR/duckq
if [[ " $CASES " == *" p4 "* ]]; then
	(cd test/fuse/duckdb && go build -o "$DUCKQ" ./cmd/duckq)
fi
MP=$(mktemp -d)
export XDG_CACHE_HOME=$BENCH_DIR/cache # the sizing cache, cleared for cold runs
pid=""
trap 'if [ -n "$pid" ]; then umount "$MP" 2>/dev/null || true; fi; rmdir "$MP"' EXIT

now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc -l; }

mount_it() { # mounts $1 at $MP; sets ready to the seconds until it answered
	local s
	s=$(now)
	"$BIN" mount -f "$1" "$MP" >/dev/null 2>"$BENCH_DIR/mount.log" &
	pid=$!
	until mountpoint -q "$MP"; do
		kill -0 "$pid" 2>/dev/null || { cat "$BENCH_DIR/mount.log"; exit 1; }
		sleep 0.01
	done
	ls "$MP" >/dev/null
	ready=$(since "$s")
}
unmount_it() { umount "$MP"; wait "$pid"; pid=""; }

median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; } # of one number a line

fuse_time() { # median time of RUNS fresh mounts of $1 running: $2 (path under the mount)
	local s
	for _ in $(seq "$RUNS"); do
		[ "${COLD:-}" = 1 ] && rm -rf "$XDG_CACHE_HOME"
		mount_it "$1"
		s=$(now)
		sh -c "$2" >/dev/null
		since "$s"
		unmount_it
	done | median
}

py_time() { # median in-process time of RUNS runs of python statement $2 on file $1
	$PY - "$1" "$RUNS" "$2" <<'PYEOF'
import sys, time, statistics, h5py, numpy as np, pandas as pd
f = h5py.File(sys.argv[1], "r")
ds = f["t/x"]
ts = []
for _ in range(int(sys.argv[2])):
    s = time.perf_counter()
    exec(sys.argv[3])
    ts.append(time.perf_counter() - s)
print(statistics.median_high(ts))
PYEOF
}

elapsed() { awk '/^elapsed / {print $2}'; } # duckq -time's last line

duck_time() { # median time of RUNS runs of DuckDB query $1 on local files
	for _ in $(seq "$RUNS"); do
		$DUCKQ -time "$1" | elapsed
	done | median
}

duckfuse_time() { # median time of RUNS fresh mounts of $1 running DuckDB query $2
	for _ in $(seq "$RUNS"); do
		[ "${COLD:-}" = 1 ] && rm -rf "$XDG_CACHE_HOME"
		mount_it "$1"
		$DUCKQ -time "$2" | elapsed
		unmount_it
	done | median
}

duckfuse_rchar() { # bytes h5fs reads (rchar) while DuckDB runs query $2 on a fresh mount of $1
	local r0 r1
	mount_it "$1"
	r0=$(awk '/^rchar/ {print $2}' "/proc/$pid/io")
	$DUCKQ "$2" >/dev/null
	r1=$(awk '/^rchar/ {print $2}' "/proc/$pid/io")
	unmount_it
	echo $((r1 - r0))
}

row() { # name, reference seconds, h5fs seconds, bytes
	printf "%-44s %9.3f %9.3f %9.0f %7.2f\n" "$1" "$2" "$3" "$(echo "$4 / $3 / 1000000" | bc -l)" "$(echo "$2 / $3" | bc -l)"
}

want() { [[ " $CASES " == *" $1 "* ]]; }
for f in p1 p2 p3 p4 p5; do
	if want "$f"; then cat "$BENCH_DIR/$f.h5" >/dev/null; fi
done
echo "load before: $(cut -d" " -f1-3 /proc/loadavg); RUNS=$RUNS, medians"
printf "%-44s %9s %9s %9s %7s\n" case ref_s h5fs_s h5fs_MB/s ref/h5fs
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

if want p4; then
	# P4: DuckDB over t.parquet of the mount against a Parquet file DuckDB
	# wrote itself from the same data (its default COPY: snappy; and
	# uncompressed, as h5fs writes it).
	P4=$BENCH_DIR/p4.h5
	mount_it "$P4"
	for c in snappy uncompressed; do
		[ -s "$BENCH_DIR/p4.$c.parquet" ] && [ "$BENCH_DIR/p4.$c.parquet" -nt "$P4" ] && continue
		$DUCKQ "COPY (SELECT * FROM '$MP/t.parquet') TO '$BENCH_DIR/p4.$c.parquet' (FORMAT parquet, COMPRESSION $c)" >/dev/null
	done
	# what DuckDB sees: row groups, rows per row group, statistics of s
	$DUCKQ "SELECT 'P4 t.parquet: ' || count(*) || ' row groups of ' || min(row_group_num_rows) || '-' || max(row_group_num_rows) || ' rows; s statistics in ' || count(stats_min_value) || ' of them' FROM parquet_metadata('$MP/t.parquet') WHERE path_in_schema = 's'"
	unmount_it
	sum_q="SELECT sum(x) FROM"
	a=$((N4 * 101 / 200)) # rows [a, a + N4/100): 1% of the rows, not chunk-aligned
	range_q="SELECT count(*) FROM %s WHERE s BETWEEN $((10 * a)) AND $((10 * (a + N4 / 100) - 1))"
	tc=$(COLD=1 duckfuse_time "$P4" "$sum_q '$MP/t.parquet'")
	tw=$(duckfuse_time "$P4" "$sum_q '$MP/t.parquet'")
	for c in snappy uncompressed; do
		tn=$(duck_time "$sum_q '$BENCH_DIR/p4.$c.parquet'")
		row "P4a sum(x), cold (DuckDB, $c)" "$tn" "$tc" "$((N4 * 8))"
		row "P4a sum(x), sizes cached (DuckDB, $c)" "$tn" "$tw" "$((N4 * 8))"
	done
	# for scale: the same column's bytes through the mount with no rendering
	tr=$(fuse_time "$P4" "cat $MP/t/x.raw")
	row "P4a (scale) cat x.raw (DuckDB, uncompressed)" "$tn" "$tr" "$((N4 * 8))"
	# P4b: bytes h5fs reads (rchar of its process) for the 1% range query
	# against a scan of the same column
	full=$(duckfuse_rchar "$P4" "SELECT sum(s) FROM '$MP/t.parquet'")
	part=$(duckfuse_rchar "$P4" "$(printf "$range_q" "'$MP/t.parquet'")")
	tn=$(duck_time "$(printf "$range_q" "'$BENCH_DIR/p4.snappy.parquet'")")
	tw=$(duckfuse_time "$P4" "$(printf "$range_q" "'$MP/t.parquet'")")
	row "P4b 1% range of s, cached (DuckDB, snappy)" "$tn" "$tw" "$((N4 * 8 / 100))"
	printf "P4b h5fs read %d bytes for the 1%% range query, %d for a scan of s: %.1f%% of the column (%.1f of its %d chunks; target <= 5%%)\n" \
		"$part" "$full" "$(echo "100 * $part / $full" | bc -l)" "$(echo "$part / ($C4 * 8)" | bc -l)" "$(((N4 + C4 - 1) / C4))"
fi

if want p5; then
	readys="" colds="" warms=""
	for _ in $(seq "$RUNS"); do
		rm -rf "$XDG_CACHE_HOME" # "first" means no size known yet
		mount_it "$BENCH_DIR/p5.h5"
		readys="$readys $ready"
		s=$(now)
		ls -lR "$MP" >/dev/null
		colds="$colds $(since "$s")"
		s=$(now)
		ls -lR "$MP" >/dev/null
		warms="$warms $(since "$s")"
		n=$(find "$MP" -type f | wc -l)
		unmount_it
	done
	med() { tr ' ' '\n' <<<"$1" | grep . | median; }
	printf "P5 1000 tables x 20 columns (%d files): mount ready %.3f s; ls -lR first %.3f s, warm %.3f s\n" "$n" "$(med "$readys")" "$(med "$colds")" "$(med "$warms")"
fi

if want p7; then
	# P7: peak RSS (VmHWM) of h5fs streaming one view of a fresh mount
	rss() { # file, view path, label
		local s t n
		mount_it "$1"
		s=$(now)
		cat "$MP/$2" >/dev/null
		t=$(since "$s")
		n=$(stat -c %s "$MP/$2")
		hwm=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
		unmount_it
		printf "%-44s VmHWM %4.0f MB  %6.0f MB in %6.2f s (%4.0f MB/s)  %s\n" "$3" "$(echo "$hwm / 1024" | bc -l)" \
			"$(echo "$n / 1000000" | bc -l)" "$t" "$(echo "$n / $t / 1000000" | bc -l)" \
			"$([ "$hwm" -le $((256 * 1024)) ] && echo "ok (<= 256 MB)" || echo "OVER 256 MB")"
	}
	rss "$BENCH_DIR/p7.h5" t/x.raw "P7 cat x.raw, gzip+shuffle"
	rss "$BENCH_DIR/p7u.h5" t/x.raw "P7 cat x.raw, uncompressed"
	rss "$BENCH_DIR/p7.h5" t/x.arrow "P7 cat x.arrow, gzip+shuffle"
	rss "$BENCH_DIR/p7u.h5" t/x.arrow "P7 cat x.arrow, uncompressed"
	# CSV runs at about 30 MB/s: the smaller column x of p4.h5, with the
	# sizing pass (the cache cleared)
	rm -rf "$XDG_CACHE_HOME"
	rss "$BENCH_DIR/p4.h5" t/x.csv "P7 cat x.csv of p4.h5 ($N4 rows), cold"
fi
echo "load after: $(cut -d" " -f1-3 /proc/loadavg)"
