# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers shared by the scripts under scripts/ (sourced, never run).

QMP_SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck disable=SC2034 # used by the scripts that source this file
QMP_TOP=$(dirname "$QMP_SCRIPTS")
QMP_CACHE=${QMP_CACHE:-/var/cache/qmempool}
QMP_PROG=$(basename "$0")
export QMP_CACHE

# Debian suite and mirror of the guest root file system.
QMP_SUITE=${QMP_SUITE:-bookworm}
QMP_MIRROR=${QMP_MIRROR:-http://deb.debian.org/debian}

qmp_log()  { printf '%s: %s\n' "$QMP_PROG" "$*"; }
qmp_die()  { printf '%s: error: %s\n' "$QMP_PROG" "$*" >&2; exit 1; }

# Seconds since the script started, for progress messages ("12s").
qmp_elapsed() { printf '%ds' "$SECONDS"; }

# A run as root gives what it wrote under build/ back to the user who
# invoked it (SUDO_UID) or, without sudo, to the owner of the checkout, so
# that `make lint` or `make clean` work as that user afterwards.  The
# scripts that write there run it on exit.
qmp_return_build() {
	local uid gid
	[ "$(id -u)" -eq 0 ] && [ -d "$QMP_TOP/build" ] || return 0
	uid=${SUDO_UID:-$(stat -c %u "$QMP_TOP")}
	gid=${SUDO_GID:-$(stat -c %g "$QMP_TOP")}
	[ "$uid" -ne 0 ] || return 0
	chown -R "$uid:$gid" "$QMP_TOP/build" || true
}

qmp_need_root() {
	[ "$(id -u)" -eq 0 ] || qmp_die "must run as root"
}

# The test kernels: Debian's stock kernels the guests boot, fetched by
# scripts/setup with `apt-get download` and unpacked with dpkg-deb (never
# installed on this host) into $QMP_KCACHE/<version>/, a merged-/usr tree:
#   boot/vmlinuz-<v>, usr/lib/modules/<v> (build, source: relative links),
#   usr/src/linux-headers-<v>{,-common}, usr/lib/linux-kbuild-<series>,
#   packages (name and version of every package unpacked: the tree is
#   complete when it exists).
QMP_KCACHE=${QMP_KCACHE:-$QMP_CACHE/kernels}
export QMP_KCACHE

qmp_kroot()    { printf '%s\n' "$QMP_KCACHE/$1"; }
qmp_kimage()   { printf '%s\n' "$QMP_KCACHE/$1/boot/vmlinuz-$1"; }
qmp_kmodules() { printf '%s\n' "$QMP_KCACHE/$1/usr/lib/modules/$1"; }
# KDIR of the test kernel $1: `make -C "$(qmp_kdir V)" M=...` builds for it.
qmp_kdir()     { printf '%s\n' "$QMP_KCACHE/$1/usr/src/linux-headers-$1"; }

# The test kernels unpacked in the cache, one version per line, sorted -V.
# QMP_KERNELS="v1 v2" narrows the list to those versions (scripts/setup
# fetches the versions it names).
qmp_kernels() {
	local d v
	if [ -n "${QMP_KERNELS:-}" ]; then
		for v in $QMP_KERNELS; do echo "$v"; done
		return
	fi
	for d in "$QMP_KCACHE"/*/; do
		[ -f "$d/packages" ] && basename "$d"
	done | sort -V
}

# Unpack the .deb $1 into the directory $2 as dpkg-deb -x does, but with
# /bin, /sbin, /lib and /lib64 into /usr: the trees are merged-/usr.
qmp_deb_unpack() {
	dpkg-deb --fsys-tarfile "$1" | tar -x -C "$2" \
		--transform='s,^\./\(bin\|sbin\|lib\|lib64\)\(/\|$\),./usr/\1\2,S'
}

# Copy the source tree (git's files if this is a checkout) to $1,
# leaving out build/ and build products.
qmp_copy_tree() {
	rm -rf "$1"
	mkdir -p "$1"
	{
		if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
			git ls-files -z --cached --others --exclude-standard
		else
			find . -path ./.git -prune -o ! -type d -printf '%P\0'
		fi
	} | grep -zvE '^build/|\.(o|ko|mod|mod\.c|cmd|a|d)$' |
		grep -zvE '(^|/)(Module\.symvers|modules\.order)$' |
		while IFS= read -r -d '' f; do
			if [ -e "$f" ] || [ -L "$f" ]; then printf '%s\0' "$f"; fi
		done | tar -cf - --null -T - | tar -xf - -C "$1"
}

# Payload disk contents for scripts/guest-run: the modules built in
# SRC at their relative paths, CONF as modules.conf, and guest-run.
qmp_payload() {
	local src=$1 conf=$2 payload=$3
	rm -rf "$payload"
	mkdir -p "$payload"
	(cd "$src" && find . -name '*.ko' -exec cp --parents -t "$payload" {} +)
	# The test scripts the configuration runs, and their directories'
	# helper scripts
	awk '$1 == "script" { print $2 }' "$conf" | while read -r f; do
		(cd "$src" && cp --parents -t "$payload" "$(dirname "$f")"/*.sh)
	done
	cp "$conf" "$payload/modules.conf"
	cp "$QMP_SCRIPTS/guest-run" "$payload/guest-run"
}

# Take an exclusive lock on the cache directory for the rest of the script.
qmp_lock_cache() {
	mkdir -p "$QMP_CACHE"
	exec 9>"$QMP_CACHE/lock"
	flock 9
}

# Build an ext4 image IMG of the directory DIR (no loop mount needed).
# The size is the tree's size plus 25% and 64 MiB of slack.
qmp_mkext4() {
	local dir=$1 img=$2 mb
	mb=$(du -sm --apparent-size "$dir" | cut -f1)
	mb=$((mb + mb / 4 + 64))
	rm -f "$img"
	truncate -s "${mb}M" "$img"
	mkfs.ext4 -q -F -L "${3:-qmp}" -E root_owner=0:0 -d "$dir" "$img"
}
