# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# perf-profile.sh - the one reader of the project's perf record profiles
# (sourced, never run; POSIX sh, from the payload's scripts/ like
# ktap.sh, and by scripts/bench on the host): vnic/forward-bench.sh's and
# bench_modules/bench-profile.sh's "# profile:" lines, and those of
# scripts/bench's profiles of UML, which scripts/benchreport/parse.py
# reads.
#
#   perf_profile_report DATA NAME PERIOD N [PARENT]
#   perf_profile_uml DATA NAME PERIOD N SYMS
#
# The symbols of the perf.data file DATA (the leaf of each sample) with at
# least 0.2% of its samples, one line each, then nothing more:
#
#   # profile: NAME samples=<S> sym=<symbol> period=PERIOD n=N
#
# (a symbol's spaces become "_"), or "# profile: NAME: no samples".
# PERIOD is the sampling period asked for (ns of cpu-clock), N the
# operations the recorded run made; a sample's own cost and the kernel's
# shortest cpu-clock period (10 us) make S * PERIOD / N no measure, so
# the report takes each symbol's share of the samples.  With PARENT (an
# extended regular expression; DATA recorded with call chains, -g), only
# the samples with a function matching it in their call chain count (perf
# report --parent, --exclude-other), e.g. the timed part of a run, and
# the 0.2% are of those.  Run it while the recorded modules are loaded:
# perf names their functions from /proc/kallsyms as it is then, and where
# perf cannot, this does (perf_profile_modsyms).

# perf_profile_modsyms FILE: the text symbols of the loaded modules into
# FILE, "<address> <name>" (16 hex digits, sorted), "<address> -" where a
# module ends, and "stale <name>" for the names ftrace keeps of freed
# module init code: /proc/kallsyms lists them under their module at an
# address outside it, which a module loaded later may reuse, and perf
# then gives that module's function the freed one's name (seen on 6.1).
# A module is at its /proc/modules address, within its size.
# $PERF_PROFILE_PROC stands for /proc (tests).
perf_profile_modsyms() {
	_pp_proc=${PERF_PROFILE_PROC:-/proc}
	if [ ! -r "$_pp_proc/modules" ]; then
		: >"$1"
		return
	fi
	awk 'NR == FNR {
			b = tolower(substr($6, 3))
			while (length(b) < 16) b = "0" b
			base[$1] = b; end[$1] = hexadd(b, $2)
			print end[$1], "-"
			next
		}
		$2 ~ /^[tT]$/ && $4 ~ /^\[/ {
			m = $4; gsub(/[][]/, "", m)
			if (!(m in base)) next
			a = tolower($1)
			while (length(a) < 16) a = "0" a
			if (a >= base[m] && a < end[m])
				print a, $3
			else
				print "stale", $3
		}
		# x (16 hex digits) + k (a size, decimal), 16 hex digits
		function hexadd(x, k,    h, i, d, r) {
			h = "0123456789abcdef"; r = ""
			for (i = 16; i >= 1; i--) {
				d = index(h, substr(x, i, 1)) - 1 + k % 16
				k = int(k / 16)
				if (d >= 16) { d -= 16; k++ }
				r = substr(h, d + 1, 1) r
			}
			return r
		}' "$_pp_proc/modules" "$_pp_proc/kallsyms" | LC_ALL=C sort >"$1"
}

# The awk functions of both readers, put before their programs: the
# symbols of a perf_profile_modsyms file (syms_load), the module function
# at an address (named), the samples of each symbol (tally) and the lines
# (emit)
PERF_PROFILE_AWK='
function syms_load(file,    l, f) {
	nk = 0	# a number: an unset one indexes as ""
	while ((getline l < file) > 0) {
		split(l, f, " ")
		if (f[1] == "stale") stale[f[2]] = 1
		else { addr[nk] = f[1]; fn[nk++] = f[2] }
	}
	close(file)
}
# The module function at address x (hex, 0x or not), or old where x is in
# no module: a binary search of the sorted addresses
function named(x, old,    a, lo, hi, mid) {
	a = tolower(x); sub(/^0x/, "", a)
	while (length(a) < 16) a = "0" a
	lo = 0; hi = nk - 1
	while (lo < hi) {
		mid = int((lo + hi + 1) / 2)
		if (addr[mid] <= a) lo = mid
		else hi = mid - 1
	}
	return nk && addr[lo] <= a && fn[lo] != "-" ? fn[lo] : old
}
function tally(sym, k) {
	if (!(sym in cnt)) order[ns++] = sym
	cnt[sym] += k; tot += k
}
function emit(name, p, n,    i, s) {
	for (i = 0; i < ns; i++) {
		s = order[i]
		if (cnt[s] * 500 >= tot)	# 0.2%
			printf "# profile: %s samples=%d sym=%s period=%s n=%s\n", name, cnt[s], s, p, n
	}
	if (!tot) printf "# profile: %s: no samples\n", name
}
'

perf_profile_report() {
	_pp_syms=$(mktemp) || return 1
	perf_profile_modsyms "$_pp_syms"
	# perf report -v: each line "<samples> <an address in the symbol>
	# <level> [k] <symbol> [<parent>]"; with a parent, its column is
	# dropped.  A raw address (a module loaded after the recording
	# began has no map in it) or a stale name is named here from the
	# address.
	perf report -i "$1" -v --stdio --no-children -g none --sort sym \
		-F sample,sym ${5:+--parent="$5" --exclude-other} 2>/dev/null |
		awk -v name="$2" -v p="$3" -v n="$4" -v parent="$5" \
			-v syms="$_pp_syms" "$PERF_PROFILE_AWK"'
			BEGIN { syms_load(syms) }
			/^#/ || NF < 5 || $1 !~ /^[0-9]+$/ { next }
			{
				if (parent != "") NF--
				sym = $5; for (i = 6; i <= NF; i++) sym = sym "_" $i
				if ($4 == "[k]" && (sym ~ /^0x[0-9a-f]+$/ || sym in stale))
					sym = named($2, sym)
				tally(sym, $1)
			}
			END { emit(name, p, n) }'
	rm -f "$_pp_syms"
}

# perf_profile_uml: the same lines from this host's perf record DATA of a
# UML kernel, the host process "linux" (UML has no perf of its own): a
# sample in its binary by perf's name, one elsewhere in its memory (a
# module of the guest) by the guest's symbols SYMS, perf_profile_modsyms's
# file as the guest made it, one in neither (the guest's user space, run
# by its own host processes of that name) left out
perf_profile_uml() {
	perf script -i "$1" -F comm,ip,sym,dso 2>/dev/null |
		awk -v name="$2" -v p="$3" -v n="$4" -v syms="$5" \
			"$PERF_PROFILE_AWK"'
			BEGIN { syms_load(syms) }
			$1 != "linux" { next }
			{
				sym = $NF ~ /\/linux\)$/ ? $3 : named($2, "[unknown]")
				if (sym != "[unknown]") tally(sym, 1)
			}
			END { emit(name, p, n) }'
}
