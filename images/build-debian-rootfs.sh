#!/usr/bin/env bash
# build-debian-rootfs.sh OUTDIR [MIRROR]
#
# Builds the root filesystem of rbx/debian:bookworm in OUTDIR with
# debootstrap (minbase + what agent tasks need), then tidies it for use as a
# container image. Must run as root. The rbx binary embeds this script
# (images/build-debian-rootfs.sh; scripts/ holds a link to it) and archives
# OUTDIR itself; run it by hand only to inspect a rootfs.
set -euo pipefail

out=${1:?usage: $0 OUTDIR [MIRROR]}
mirror=${2:-http://deb.debian.org/debian}
suite=bookworm
include=bash,python3,python3-pytest,git,curl,ca-certificates,procps

if [ "$(id -u)" != 0 ]; then
	echo "build-debian-rootfs: must run as root" >&2
	exit 1
fi
if ! command -v debootstrap >/dev/null; then
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y debootstrap || { apt-get update && apt-get install -y debootstrap; }
fi

# debootstrap mounts proc and sys inside the target and leaves them behind
# when it is interrupted; never leave a host mount in a directory that the
# caller will delete.
cleanup() {
	for m in dev/pts dev/shm proc sys; do
		if mountpoint -q "$out/$m" 2>/dev/null; then umount -l "$out/$m" || true; fi
	done
}
trap cleanup EXIT
trap 'exit 130' INT TERM

debootstrap --variant=minbase --include="$include" "$suite" "$out" "$mirror"

# Installing inside a container must not try to start services.
cat >"$out/usr/sbin/policy-rc.d" <<'POLICY'
#!/bin/sh
# rbx: no daemons are started by package installs inside a container.
exit 101
POLICY
chmod 755 "$out/usr/sbin/policy-rc.d"

# Keep apt usable but lean: no recommends, no downloaded .debs kept after an
# install. Lists are removed below, so `apt-get update` comes first, as in
# every Debian container image.
cat >"$out/etc/apt/apt.conf.d/90rbx" <<'APTCONF'
APT::Install-Recommends "false";
APT::Install-Suggests "false";
Acquire::Languages "none";
Acquire::GzipIndexes "true";
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
APTCONF
echo "deb $mirror $suite main" >"$out/etc/apt/sources.list"

rm -rf "$out"/var/lib/apt/lists/* "$out"/var/cache/apt/*.bin \
	"$out"/var/cache/apt/archives/*.deb "$out"/var/cache/apt/archives/partial/* \
	"$out"/var/log/apt/* "$out"/var/log/dpkg.log "$out"/var/log/bootstrap.log \
	"$out"/tmp/* "$out"/var/tmp/*
mkdir -p "$out/var/lib/apt/lists/partial" "$out/workspace"
# The engine bind-mounts its own resolv.conf and hostname; drop the host's.
: >"$out/etc/resolv.conf"
rm -f "$out/etc/hostname"
echo "build-debian-rootfs: $out ready"
