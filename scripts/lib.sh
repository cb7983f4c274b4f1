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

# The kernel reports a boot does not survive (an oops, a panic, a bad
# access, a KASAN report; not KCSAN's nor soft lockups, after which a
# kernel goes on): scripts/vm-run's boot watcher stops waiting for init
# after one, scripts/check names the first one of a failed boot.
# shellcheck disable=SC2034 # used by the scripts that source this file
QMP_FATAL_RE='BUG: KASAN|BUG: kernel|BUG: unable|Oops|Kernel panic|general protection fault'

# Debian suite and mirror of the guest root file system.
QMP_SUITE=${QMP_SUITE:-bookworm}
QMP_MIRROR=${QMP_MIRROR:-http://deb.debian.org/debian}
QMP_SECURITY_MIRROR=${QMP_SECURITY_MIRROR:-http://deb.debian.org/debian-security}

# The packages of the guests' root trees besides minbase (scripts/mkrootfs's
# $QMP_SUITE tree; scripts/pkg-journey's tree of each Debian release)
QMP_GUEST_PACKAGES=kmod,iproute2,procps,util-linux,nftables,iptables,linux-perf

# Debian 13 (trixie, its updates, security and backports): the suite of the
# newer test kernels (6.12.*+deb13, and 7.x from trixie-backports), of
# their linux-source and of the build root (scripts/mkbuildroot).  apt
# reaches it through a private configuration under $QMP_TRIXIE_APT (its
# own sources, lists, cache and an empty dpkg status): the host's apt
# configuration and its package lists stay as they are.
QMP_TRIXIE=${QMP_TRIXIE:-trixie}
QMP_TRIXIE_APT=${QMP_TRIXIE_APT:-$QMP_CACHE/apt-$QMP_TRIXIE}

# The version of the modules and the packages: debian/changelog's first
# entry, the one source of it (Kbuild reads it there too).
qmp_version() {
	sed -n '1s/^[^(]*(\([^)]*\)).*/\1/p' "$QMP_TOP/debian/changelog"
}

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

# qmp_apt_trixie apt-get|apt-cache ARGS...: the command with the private
# Debian 13 configuration (see QMP_TRIXIE_APT); `qmp_apt_trixie_update`
# writes the configuration and fetches the lists (root).
qmp_apt_trixie() {
	local cmd=$1 a=$QMP_TRIXIE_APT
	shift
	"$cmd" -o Dir::Etc::SourceList="$a/sources.list" \
		-o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$a/lists" \
		-o Dir::Cache="$a/cache" -o Dir::State::status=/dev/null \
		"$@"
}
qmp_apt_trixie_update() {
	local a=$QMP_TRIXIE_APT s key=/usr/share/keyrings/debian-archive-keyring.gpg
	mkdir -p "$a/lists/partial" "$a/cache/archives/partial"
	chown _apt "$a/lists/partial" "$a/cache/archives/partial" 2>/dev/null || true
	{
		for s in "$QMP_TRIXIE" "$QMP_TRIXIE-updates" "$QMP_TRIXIE-backports"; do
			echo "deb [signed-by=$key] $QMP_MIRROR $s main"
		done
		echo "deb [signed-by=$key] $QMP_SECURITY_MIRROR $QMP_TRIXIE-security main"
	} >"$a/sources.list"
	qmp_apt_trixie apt-get update -q
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

# True if this host can build modules for the kernel build directory $1
# itself: the compiler Debian's headers name (.kernelvariables' CC, e.g.
# gcc-14) is installed, and kbuild's helper programs (modpost, objtool,
# resolve_btfids, fixdep) run with the host's C library.  Debian 13's
# kernels fail both on Debian 12 (gcc-12, glibc 2.36): scripts/kmake
# builds for them in the Debian 13 build root (scripts/mkbuildroot).
qmp_host_kbuild() {
	local kdir=$1 cc f
	cc=$(sed -n 's/^CC = .*)\(gcc-[0-9]*\)$/\1/p' "$kdir/.kernelvariables" 2>/dev/null)
	if [ -n "$cc" ]; then
		command -v "$cc" >/dev/null || return 1
	fi
	for f in "$kdir"/scripts/mod/modpost* "$kdir"/scripts/basic/fixdep \
		"$kdir"/tools/objtool/objtool* "$kdir"/tools/bpf/resolve_btfids/resolve_btfids; do
		[ -f "$f" ] || continue
		! LC_ALL=C ldd "$f" 2>&1 | grep -q 'not found' || return 1
	done
	return 0
}

# The Debian 13 build root of scripts/mkbuildroot
QMP_BUILDROOT=${QMP_BUILDROOT:-$QMP_CACHE/buildroot-$QMP_TRIXIE}

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

# The linux-source tarball of kernel series $1 (e.g. 7.3): Debian 13's,
# unpacked into the cache by scripts/setup, or the host's installed
# linux-source-<series> package's; nothing if neither is there.
qmp_linux_source() {
	local f
	for f in "$QMP_CACHE/linux-source/linux-source-$1.tar.xz" \
		"/usr/src/linux-source-$1.tar.xz"; do
		[ -f "$f" ] && { echo "$f"; return 0; }
	done
	return 0
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
# SRC at their relative paths, CONF as modules.conf, guest-run, and the
# KTAP writer of the test scripts at its place in the source tree
# (scripts/ktap.sh) and perf reader (scripts/perf-profile.sh).
qmp_payload() {
	local src=$1 conf=$2 payload=$3
	rm -rf "$payload"
	mkdir -p "$payload/scripts"
	cp "$QMP_SCRIPTS/ktap.sh" "$QMP_SCRIPTS/perf-profile.sh" "$payload/scripts/"
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

# qmp_debootstrap SUITE PACKAGES DIR: a Debian minbase tree of SUITE with
# PACKAGES (comma-separated) in DIR, made when missing or when the suite,
# the mirror or the list changed (DIR.stamp); the log is DIR.log.
qmp_debootstrap() {
	local suite=$1 pkgs=$2 dir=$3 want t0=$SECONDS
	want="$suite $QMP_MIRROR $pkgs"
	[ "$(cat "$dir.stamp" 2>/dev/null)" != "$want" ] || return 0
	command -v debootstrap >/dev/null || qmp_die "no debootstrap: run scripts/setup"
	qmp_log "debootstrap $suite ($pkgs) into $dir ..." >&2
	rm -rf "$dir.tmp" "$dir.stamp"
	if ! debootstrap --variant=minbase --include="$pkgs" \
		"$suite" "$dir.tmp" "$QMP_MIRROR" >"$dir.log" 2>&1; then
		tail -n 20 "$dir.log" >&2
		qmp_die "debootstrap failed, see $dir.log"
	fi
	rm -rf "$dir"
	mv "$dir.tmp" "$dir"
	echo "$want" >"$dir.stamp"
	qmp_log "debootstrap of $dir done in $((SECONDS - t0))s" >&2
}

# The Debian suite whose tools belong to kernel $1: Debian's kernel
# releases end in +deb<N>-<flavour> since 6.12 (6.1's do not: Debian 12)
qmp_kernel_suite() {
	case $1 in
	*+deb13-*) echo trixie ;;
	*+deb14-*) echo forky ;;
	*) echo bookworm ;;
	esac
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
