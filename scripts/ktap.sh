# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh
#
# ktap.sh - the one KTAP writer of the shell scripts (sourced, never run;
# POSIX sh: the guests' scripts source it too, from their payload's
# scripts/ktap.sh).  include/qmp/ktap.h is its C twin; scripts/ktap-check
# reads what both print:
#
#	KTAP version 1
#	1..<number of results>
#	# <diagnostic>
#	ok <n> <name>
#	not ok <n> <name> # <reason>
#	ok <n> <name> # SKIP <reason>
#	# <suite>: pass:<p> fail:<f> skip:<s>
#
#   ktap_begin [N]         the header and the plan 1..N; without N (not
#                          known yet) everything is held: ktap_end prints
#                          the header, the plan, then the rest
#   ktap_ok NAME [DIRECTIVE]
#   ktap_not_ok NAME REASON
#   ktap_skip NAME REASON
#   ktap_diag TEXT...      a diagnostic line
#   ktap_end [SUITE]       what is held and, with SUITE, the summary
#
# KTAP_N (results so far), KTAP_FAILED, KTAP_SKIPPED count; KTAP_LAST is
# the last result line (for a progress message).  Everything goes to
# stdout.

ktap_begin() {
	KTAP_N=0 KTAP_FAILED=0 KTAP_SKIPPED=0 KTAP_LAST='' KTAP_HELD=''
	KTAP_HOLD=1
	if [ $# -gt 0 ]; then
		echo "KTAP version 1"
		echo "1..$1"
		KTAP_HOLD=''
	fi
}

# _ktap_line LINE: print it, or hold it
_ktap_line() {
	if [ -n "$KTAP_HOLD" ]; then
		KTAP_HELD="$KTAP_HELD$1
"
	else
		echo "$1"
	fi
}

# _ktap_result LINE: number, keep and print (or hold) one result line
_ktap_result() {
	KTAP_N=$((KTAP_N + 1))
	# shellcheck disable=SC2034 # for the sourcing script
	KTAP_LAST="$1"
	_ktap_line "$1"
}

ktap_ok() {
	_ktap_result "ok $((KTAP_N + 1)) $1${2:+ # $2}"
}

ktap_not_ok() {
	KTAP_FAILED=$((KTAP_FAILED + 1))
	_ktap_result "not ok $((KTAP_N + 1)) $1 # ${2:-failed}"
}

ktap_skip() {
	KTAP_SKIPPED=$((KTAP_SKIPPED + 1))
	_ktap_result "ok $((KTAP_N + 1)) $1 # SKIP $2"
}

ktap_diag() {
	_ktap_line "# $*"
}

ktap_end() {
	if [ -n "$KTAP_HOLD" ]; then
		echo "KTAP version 1"
		echo "1..$KTAP_N"
		printf '%s' "$KTAP_HELD"
		KTAP_HELD='' KTAP_HOLD=''
	fi
	if [ $# -gt 0 ]; then
		echo "# $1: pass:$((KTAP_N - KTAP_FAILED - KTAP_SKIPPED))" \
			"fail:$KTAP_FAILED skip:$KTAP_SKIPPED"
	fi
}
