#!/usr/bin/env bash
# P6: appending N rows x 5 columns (int64, float64, int32, float32, uint8)
# to a HEP001 table through a read-write h5fs mount, against h5py
# appending the same rows in batches of BATCH (resize, write, set NROWS,
# flush), measured in the same run: RUNS rounds, each running every case
# once (so that all see the same load), and the median of each case:
#
#   csv-one    cat rows.csv >> t.csv: one append of N rows
#   csv-batch  N/BATCH appends of BATCH lines to t.csv (a commit each)
#   raw-batch  N/BATCH appends of BATCH rows to each column's .raw (a
#              commit each, once the fifth column lines up)
#   h5py       h5py_append.py, N/BATCH batches
#
# Every run starts from a fresh copy of the empty table; the mount's time
# includes mounting and unmounting (every commit is durable when the
# writer's close returns; the mount process's exit afterwards is not
# timed, but waited for). Ratios are h5py's time over h5fs's (>= 1.0:
# h5fs is at least as fast). The load average is printed before and
# after: the machine is shared. Needs root and /dev/fuse.
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH_DIR=${BENCH_DIR:-/tmp/h5fs-append-bench}
N=${N:-1000000}
BATCH=${BATCH:-10000}
RUNS=${RUNS:-3}
PY=/usr/bin/python3
mkdir -p "$BENCH_DIR"
go build -o "$BENCH_DIR/h5fs" ./cmd/h5fs
if [ ! -f "$BENCH_DIR/rows-$N.csv" ] || [ ! -f "$BENCH_DIR/a.raw" ]; then
	$PY bench/append_bench_gen.py "$BENCH_DIR" "$N" "$BATCH"
	mv "$BENCH_DIR/rows.csv" "$BENCH_DIR/rows-$N.csv"
	(cd "$BENCH_DIR" && rm -rf csvb && mkdir csvb && tail -n +2 "rows-$N.csv" | split -l "$BATCH" -d -a 5 - csvb/)
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
csv_batch='for b in "$BENCH_DIR"/csvb/*; do cat "$b" >> "$MNT/t.csv"; done'
raw_batch='nb=$(( (N + BATCH - 1) / BATCH )); for ((b = 0; b < nb; b++)); do for c in a:8 b:8 c:4 d:4 e:1; do n=${c%%:*}; w=${c##*:}; dd if="$BENCH_DIR/$n.raw" bs=$((BATCH * w)) skip=$b count=1 status=none >> "$MNT/t/$n.raw"; done; done'
run_h5py() {
	fresh
	local t0 t1
	t0=$(now)
	$PY "$BENCH_DIR/h5py_append.py" "$BENCH_DIR/t.h5" "$BATCH" "$BENCH_DIR"
	t1=$(now)
	echo "$t1 - $t0" | bc
}

median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
cases=(h5py csv-one csv-batch raw-batch)
declare -A T R
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for ((r = 0; r < RUNS; r++)); do
	for c in "${cases[@]}"; do
		case $c in
		h5py) t=$(run_h5py) ;;
		csv-one) t=$(run_mount "$csv_one") ;;
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
for c in csv-one csv-batch raw-batch; do
	printf 'P6 ratio h5py/%-10s %.2fx\n' "$c" "$(echo "${T[h5py]} / ${T[$c]}" | bc -l)"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
