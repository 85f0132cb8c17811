# Shared by the cost scripts (sourced, not run): build tests/bench/$NAME.c
# (-O2, as the kernel) into build/bench/ and count the instructions a
# workload executes inside one function under callgrind.
#
#   NAME=tp_cost; COUNT=2000; . "$(dirname "$0")/callgrind.sh"
#   n=$(count <workload> <function>)
TOP=$(cd "$(dirname "$0")/../.." && pwd)
OUT=$TOP/build/bench
CC=${CC:-cc}

command -v valgrind >/dev/null ||
	{ echo "$NAME: valgrind is not installed (apt-get install valgrind)" >&2; exit 1; }
mkdir -p "$OUT"
$CC -std=gnu11 -O2 -g -Wall -Wextra -Werror -I"$TOP/kernel/include" \
	-o "$OUT/$NAME" "$TOP/tests/bench/$NAME.c"

# instructions executed inside function $2 while running workload $1
count() {
	local f=$OUT/callgrind.$NAME.$1
	valgrind -q --tool=callgrind --callgrind-out-file="$f" --toggle-collect="$2" \
		"$OUT/$NAME" "$1" "$COUNT" >/dev/null
	awk '/^(summary|totals):/ { print $2; exit }' "$f"
}
