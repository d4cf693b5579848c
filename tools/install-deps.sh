#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
#
# Installs what bperf needs to build and test on Debian 12: missing packages through apt-get and
# the en_US.UTF-8 / de_DE.UTF-8 locales the output tests use. For the arm64 guest (tools/vmtest
# --arch arm64) it adds dpkg's arm64 architecture and the bookworm-backports suite (its 6.12
# kernel), so that apt can cross-build bperf and fetch the guest's Debian programs and kernels.
# Idempotent, and quick when all is present: apt-get runs only if something is missing.
#
#	tools/install-deps.sh		everything make check uses (make deps)
#	tools/install-deps.sh --build	what building and make demo need, no more (make demo)
set -euo pipefail

BUILD_ONLY=
[ "${1:-}" = --build ] && BUILD_ONLY=1

FOREIGN_ARCH=arm64
BACKPORTS_LIST=/etc/apt/sources.list.d/bperf-bookworm-backports.sources

PACKAGES=(
	clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev pkg-config make gcc g++ libc6-dev
	linux-perf locales
	libclang-rt-14-dev	# libFuzzer and the sanitizer runtimes of Debian 12's clang 14 (make fuzz)
	qemu-system-x86 busybox-static cpio
	# make ARCH=arm64 and the arm64 guest (qemu-system-aarch64, from qemu-system-arm)
	gcc-aarch64-linux-gnu libc6-dev-arm64-cross libbpf-dev:arm64 libelf-dev:arm64
	zlib1g-dev:arm64 qemu-system-arm
	jq	# the shared-counter tests read bpftool -j
	strace	# tests/shell/unprivileged.sh: no bpf() call when privileges are missing
	# perf 6.1's event tables (tools/perf/pmu-events/arch/ in /usr/src/linux-source-6.1.tar.xz),
	# which the build turns into bperf's vendor events and metrics
	linux-source-6.1
	python3	# tests/shell/pmu_tables_vs_jevents.sh runs perf's own table generator
	# bperf daemon's exporter: a real Prometheus 2.42 and promtool scrape and lint it
	# (tests/shell/daemon_*.sh), promtool checks and tests the shipped rules
	# (tests/shell/prom_rules.sh), curl fetches /metrics (bench/scrape)
	prometheus curl
	# systemd-analyze security/verify check tools/bperf-daemon.service
	# (tests/shell/unit_security.sh); setpriv and prlimit apply its limits (tools/run-as-unit)
	systemd util-linux
)
LOCALES=(en_US.UTF-8 de_DE.UTF-8)
# building bperf (its perf 6.1 tables come from linux-source-6.1) and running make demo
BUILD_PACKAGES=(clang llvm libbpf-dev bpftool libelf-dev zlib1g-dev pkg-config make gcc g++
	libc6-dev linux-source-6.1)
if [ -n "$BUILD_ONLY" ]; then
	PACKAGES=("${BUILD_PACKAGES[@]}")
	LOCALES=()
fi

as_root() {
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-deps: $1 needs root; run 'make deps' as root" >&2
		exit 1
	fi
}

update_needed=
if [ -z "$BUILD_ONLY" ] && ! dpkg --print-foreign-architectures | grep -qx "$FOREIGN_ARCH"; then
	as_root "adding the $FOREIGN_ARCH architecture"
	echo "install-deps: dpkg --add-architecture $FOREIGN_ARCH"
	dpkg --add-architecture "$FOREIGN_ARCH"
	update_needed=1
fi
if [ -z "$BUILD_ONLY" ] && ! apt-cache policy 2>/dev/null | grep -q ' bookworm-backports/main'
then
	as_root "adding bookworm-backports"
	echo "install-deps: adding bookworm-backports ($BACKPORTS_LIST)"
	cat >"$BACKPORTS_LIST" <<EOF
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm-backports
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
	update_needed=1
fi

missing=()
for pkg in "${PACKAGES[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$pkg")
	fi
done

if [ ${#missing[@]} -gt 0 ] || [ -n "$update_needed" ]; then
	as_root "installing ${missing[*]:-nothing (new apt sources)}"
	apt-get update
fi
# prometheus's postinst starts the packaged server on :9090 (invoke-rc.d, deb-systemd-invoke):
# a policy-rc.d that answers 101 ("action forbidden") keeps every service down during the
# install; one already there is left as it is.
POLICY_RC=/usr/sbin/policy-rc.d
policy_added=
restore_policy() {
	if [ -n "$policy_added" ]; then
		rm -f "$POLICY_RC"
		policy_added=
	fi
}
if [ ${#missing[@]} -gt 0 ]; then
	echo "install-deps: installing ${missing[*]}"
	if [ ! -e "$POLICY_RC" ]; then
		trap restore_policy EXIT
		printf '#!/bin/sh\n# bperf install-deps: no service starts now\nexit 101\n' \
			>"$POLICY_RC"
		chmod 755 "$POLICY_RC"
		policy_added=1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
	restore_policy
fi

# `locale -a` spells them en_US.utf8
have_locale() {
	local want
	want=$(echo "$1" | tr '[:upper:]' '[:lower:]' | sed 's/utf-8/utf8/')
	locale -a 2>/dev/null | tr '[:upper:]' '[:lower:]' | grep -qx "$want"
}

missing_locales=()
for loc in "${LOCALES[@]+"${LOCALES[@]}"}"; do
	have_locale "$loc" || missing_locales+=("$loc")
done

if [ ${#missing_locales[@]} -gt 0 ]; then
	as_root "generating locales ${missing_locales[*]}"
	for loc in "${missing_locales[@]}"; do
		line="$loc UTF-8"
		if grep -q "^# *$line" /etc/locale.gen; then
			sed -i "s/^# *$line/$line/" /etc/locale.gen
		elif ! grep -q "^$line" /etc/locale.gen; then
			echo "$line" >> /etc/locale.gen
		fi
	done
	locale-gen
fi
