#!/usr/bin/env bash
# P6: appending N rows x 5 columns (int64, float64, int32, float32, uint8)
# to a HEP001 table through a read-write h5fs mount, against h5py
# appending the same rows in batches of BATCH (resize, write, set NROWS,
# flush), measured in the same run: RUNS rounds, each running every case
# once (so that all see the same load), and the median of each case:
#
#   csv-one    cat rows.csv >> t.csv: one append of N rows, one commit
#   raw-one    cat X.raw >> t/X.raw for each column: one commit, once the
#              fifth column lines up
#   csv-batch  N/BATCH appends of BATCH lines to t.csv (a commit each)
#   raw-batch  N/BATCH appends of BATCH rows to each column's .raw (a
#              commit each, once the fifth column lines up)
#   h5py       h5py_append.py, N/BATCH batches
#
# The batch cases are one process (append_batches.py: open, write, close
# per file and batch), as h5py is. Every run starts from a fresh copy of
# the empty table; the mount's time includes mounting and unmounting
# (every commit is durable when the writer's close returns; the mount
# process's exit afterwards is not timed, but waited for). Ratios are
# h5py's time over h5fs's (>= 1.0: h5fs is at least as fast).
#
# A batch case makes N/BATCH durable commits where h5py flushes without
# syncing: its floor is N/BATCH times the cost of a commit that writes
# nothing but NROWS (table's BenchmarkCommitFloor, in the same round),
# and each batch case is reported as its time over that floor too.
# The load average is printed before and after: the machine is shared.
# Needs root and /dev/fuse.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-/tmp/h5fs-append-bench}
N=${N:-1000000}
BATCH=${BATCH:-10000}
RUNS=${RUNS:-3}
PY=/usr/bin/python3
mkdir -p "$BENCH_DIR"
go build -o "$BENCH_DIR/h5fs" ./cmd/h5fs
go test -c -o "$BENCH_DIR/table.test" ./table
if [ ! -f "$BENCH_DIR/rows-$N.csv" ] || [ ! -f "$BENCH_DIR/a.raw" ]; then
	$PY bench/append_bench_gen.py "$BENCH_DIR" "$N" "$BATCH"
	mv "$BENCH_DIR/rows.csv" "$BENCH_DIR/rows-$N.csv"
	rm -rf "$BENCH_DIR/csvb-$BATCH"
fi
if [ ! -d "$BENCH_DIR/csvb-$BATCH" ]; then # csv-batch's batches, split untimed
	mkdir "$BENCH_DIR/csvb-$BATCH"
	tail -n +2 "$BENCH_DIR/rows-$N.csv" | split -l "$BATCH" -d -a 5 - "$BENCH_DIR/csvb-$BATCH/"
fi
MNT=$BENCH_DIR/mnt
mkdir -p "$MNT"
now() { date +%s.%N; }

fresh() { cp "$BENCH_DIR/empty.h5" "$BENCH_DIR/t.h5"; }

# run_mount CMD: times mount -o rw, CMD, unmount; checks NROWS = N after.
run_mount() {
	fresh
	local t0 t1
	t0=$(now)
	"$BENCH_DIR/h5fs" mount -o rw "$BENCH_DIR/t.h5" "$MNT" >/dev/null
	local pid
	pid=$(pgrep -n -f "h5fs mount -f -o rw $BENCH_DIR/t.h5")
	eval "$1"
	umount "$MNT"
	t1=$(now)
	while kill -0 "$pid" 2>/dev/null; do sleep 0.05; done # it holds the file's lock
	local rows
	rows=$($PY -c "import h5py,sys; print(int(h5py.File(sys.argv[1],'r')['t'].attrs['NROWS']))" "$BENCH_DIR/t.h5")
	[ "$rows" = "$N" ] || { echo "NROWS is $rows after $1, want $N" >&2; exit 1; }
	echo "$t1 - $t0" | bc
}

csv_one='cat "$BENCH_DIR/rows-$N.csv" >> "$MNT/t.csv"'
raw_one='for c in a b c d e; do cat "$BENCH_DIR/$c.raw" >> "$MNT/t/$c.raw"; done'
csv_batch='$PY bench/append_batches.py csv "$BENCH_DIR" "$MNT" "$N" "$BATCH"'
raw_batch='$PY bench/append_batches.py raw "$BENCH_DIR" "$MNT" "$N" "$BATCH"'
run_h5py() {
	fresh
	local t0 t1
	t0=$(now)
	$PY "$BENCH_DIR/h5py_append.py" "$BENCH_DIR/t.h5" "$BATCH" "$BENCH_DIR"
	t1=$(now)
	echo "$t1 - $t0" | bc
}

# floor: seconds of N/BATCH commits that write nothing but NROWS.
floor() {
	local ns
	ns=$(cd table && TMPDIR=$BENCH_DIR "$BENCH_DIR/table.test" -test.run '^$' -test.bench '^BenchmarkCommitFloor$' -test.benchtime 100x |
		awk '$1 ~ /^BenchmarkCommitFloor/ {print $3}')
	echo "$ns * ((($N + $BATCH - 1) / $BATCH)) / 1000000000" | bc -l
}

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
cases=(h5py csv-one raw-one csv-batch raw-batch floor)
declare -A T R
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 0; r < RUNS; r++)); do
	for c in "${cases[@]}"; do
		case $c in
		h5py) t=$(run_h5py) ;;
		csv-one) t=$(run_mount "$csv_one") ;;
		raw-one) t=$(run_mount "$raw_one") ;;
		floor) t=$(floor) ;;
		csv-batch) t=$(run_mount "$csv_batch") ;;
		raw-batch) t=$(run_mount "$raw_batch") ;;
		esac
		R[$c]="${R[$c]:-}${R[$c]:+ }$t"
	done
done
for c in "${cases[@]}"; do
	T[$c]=$(printf '%s\n' ${R[$c]} | median)
	printf 'P6 %-10s %8.2f s  (median; runs: %s)\n' "$c" "${T[$c]}" "${R[$c]}"
done
for c in csv-one raw-one csv-batch raw-batch; do
	printf 'P6 ratio h5py/%-10s %.2fx\n' "$c" "$(echo "${T[h5py]} / ${T[$c]}" | bc -l)"
done
for c in csv-batch raw-batch; do
	printf 'P6 %-10s %.2fx its floor of %d commits (%.2f s)\n' "$c" "$(echo "${T[$c]} / ${T[floor]}" | bc -l)" $(((N + BATCH - 1) / BATCH)) "${T[floor]}"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
