#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/lvm_fixture.sh DIR --- real LVM2 physical volumes, written by the
# lvm tools on loop devices, for tests/unit_lvm (and the seeds of
# tests/fuzz/corpus/lvm/).  No device-mapper is needed: nothing is
# activated (--driverloaded n, -an, -Zn); only metadata is written.
#
# In DIR:
#   pv0.img, pv1.img  64 and 32 MiB sparse files, both PVs of one VG:
#     root    linear, 2 segments on pv0 with "other" between them
#     other   linear, 1 segment on pv0
#     span    linear, 2 segments: the end of pv0, then pv1
#     stripe  striped, 2 stripes (pv0 and pv1)
#   small.img  the first 64 KiB of a PV with an 8 KiB metadata area
#   wrap.img   the same after renames, the text wrapping round its area
#   vgs.txt pvs.txt lvs.txt  the tools' view (--separator ,):
#     vgs: vg_name,vg_uuid,vg_seqno,vg_extent_size (bytes)
#     pvs: image,pv_uuid,pe_start (bytes),pv_pe_count,dev_size (bytes)
#     lvs: lv_name,lv_uuid,seg_start_pe,seg_size_pe,segtype,stripes,
#          seg_pe_ranges (image:first-last ...)
#   commands.txt  the commands run
#
# Exit 77 with a "SKIP: why" line when the tools, root or loop devices
# are missing; loop devices are detached on every exit.
set -u
dir=${1:?usage: lvm_fixture.sh DIR}
export LVM_SUPPRESS_FD_WARNINGS=1

skip() {
	echo "SKIP: lvm fixture: $*"
	exit 77
}

for t in lvm losetup truncate od; do
	command -v "$t" >/dev/null 2>&1 || skip "$t is not installed"
done
[ "$(id -u)" = 0 ] || skip "loop devices need root"
mkdir -p "$dir" || exit 1
cd "$dir" || exit 1

loops=()
cleanup() {
	local l
	for l in "${loops[@]}"; do
		losetup -d "$l" 2>/dev/null
	done
}
trap cleanup EXIT

attach() { # IMAGE SIZE: the loop device, in $dev
	rm -f "$1"
	truncate -s "$2" "$1" || exit 1
	dev=$(losetup -f --show "$1" 2>/dev/null) || skip "losetup failed"
	loops+=("$dev")
}

# The tools see only our loop devices, and keep no state (no devices
# file, hints, backups or archives).
conf() {
	local f="" l
	for l in "$@"; do
		f="$f\"a|^$l\$|\", "
	done
	printf '%s' "devices { filter=[ $f\"r|.*|\" ] global_filter=[ $f\"r|.*|\" ] use_devicesfile=0 obtain_device_list_from_udev=0 hints=\"none\" } activation { udev_sync=0 udev_rules=0 } backup { backup=0 archive=0 }"
}

run() { # lvm COMMAND ARGS...: logged, quiet unless it fails
	local out
	echo "lvm $*" >>commands.txt
	if ! out=$(lvm "$@" --config "$cfg" 2>&1); then
		echo "$out" >&2
		echo "lvm fixture: lvm $1 failed" >&2
		exit 1
	fi
}

: >commands.txt
attach pv0.img 64M
d0=$dev
attach pv1.img 32M
d1=$dev
cfg=$(conf "$d0" "$d1")
vg=e4tvg$$
run pvcreate "$d0" "$d1"
run vgcreate -s 4M "$vg" "$d0" "$d1"
run lvcreate --driverloaded n -an -Zn -n root -L 8M "$vg" "$d0"
run lvcreate --driverloaded n -an -Zn -n other -L 4M "$vg" "$d0"
run lvextend --driverloaded n -L +8M "$vg/root" "$d0"
# pv0 holds 15 extents: root 0-1 3-4, other 2; span takes 5-10 and 2
# extents of pv1, stripe 2 on each
run lvcreate --driverloaded n -an -Zn -n span -l 6 "$vg" "$d0"
run lvextend --driverloaded n -l 8 "$vg/span" "$d1"
run lvcreate --driverloaded n -an -Zn -n stripe -i 2 -I 64k -L 16M "$vg" \
	"$d0" "$d1"
lvm vgs "$vg" --config "$cfg" --noheadings --separator , --units b \
	--nosuffix -o vg_name,vg_uuid,vg_seqno,vg_extent_size 2>/dev/null |
	sed 's/^ *//' >vgs.txt
lvm pvs --config "$cfg" --noheadings --separator , --units b --nosuffix \
	-o pv_name,pv_uuid,pe_start,pv_pe_count,dev_size "$d0" "$d1" \
	2>/dev/null | sed "s/^ *//; s|^$d0,|pv0.img,|; s|^$d1,|pv1.img,|" \
	>pvs.txt
lvm lvs "$vg" --config "$cfg" --segments --noheadings --separator , \
	-o lv_name,lv_uuid,seg_start_pe,seg_size_pe,segtype,stripes,seg_pe_ranges \
	2>/dev/null | sed "s/^ *//; s|$d0:|pv0.img:|g; s|$d1:|pv1.img:|g" \
	>lvs.txt
if ! [ -s vgs.txt ] || ! [ -s pvs.txt ] || ! [ -s lvs.txt ]; then
	echo "lvm fixture: vgs, pvs or lvs printed nothing" >&2
	exit 1
fi
cleanup
loops=()

# A small PV whose metadata text wraps round its area.
attach s.img 16M
cfg=$(conf "$dev")
run pvcreate --metadatasize 8k --dataalignment 64k "$dev"
run vgcreate -s 1M "${vg}s" "$dev"
run lvcreate --driverloaded n -an -Zn -n a -L 2M "${vg}s"
run lvcreate --driverloaded n -an -Zn -n b -L 1M "${vg}s"
run lvextend --driverloaded n -L +1M "${vg}s/a"
head -c 65536 s.img >small.img
# raw_locn 0 of the mda header at 4096: offset and size; the area is
# 61440 bytes
wraps() {
	# shellcheck disable=SC2046 # two numbers, split on purpose
	set -- $(od -An -t u8 -j $((4096 + 40)) -N 16 s.img)
	[ $(($1 + $2)) -gt 61440 ] && wrapped=1
}
wrapped=0
for i in $(seq 1 40); do
	# a name that grows the text a little, then back: each write
	# lands after the last one
	run lvrename --driverloaded n "${vg}s" a "x$i"
	wraps && break
	run lvrename --driverloaded n "${vg}s" "x$i" a
	wraps && break
done
[ "$wrapped" = 1 ] || {
	echo "lvm fixture: the metadata never wrapped" >&2
	exit 1
}
head -c 65536 s.img >wrap.img
rm -f s.img
exit 0
