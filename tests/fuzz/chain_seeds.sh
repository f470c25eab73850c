#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# tests/fuzz/chain_seeds.sh DIR --- the seeds of the chain harness
# (tests/fuzz/chain.c says the format), written into DIR
# (tests/fuzz/corpus/chain/): qcow2 chains made by qemu-img (on a raw
# base, a loop, a FIFO or a link leading out as the backing file), a
# differencing VHD over a dynamic one (its parent's identifier right or
# wrong), a VMDK descriptor with a flat extent (beside it, a FIFO, a link
# leading out, named in out/), and a FIFO as the evidence.  Run by hand
# when the format changes; the seeds are committed.
set -eu
dir=${1:?usage: chain_seeds.sh DIR}
command -v qemu-img >/dev/null || {
	echo "chain_seeds: qemu-img is needed" >&2
	exit 1
}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
src=$(cd "$(dirname "$0")/../.." && pwd)
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
cd "$w"

# pack OUT FLAGS KIND:NAME:SOURCE...: an input of the harness; KIND
# file, fifo, link (SOURCE is the target) or out; SOURCE a file for
# file and out.
pack() {
	python3 - "$@" <<'EOF'
import struct, sys
out, flags = sys.argv[1], int(sys.argv[2])
b = bytearray([flags])
kinds = {"file": 0, "fifo": 1, "link": 2, "out": 3}
for e in sys.argv[3:]:
    kind, name, src = e.split(":", 2)
    if kind in ("file", "out"):
        data = open(src, "rb").read()
    elif kind == "link":
        data = src.encode()
    else:
        data = b""
    b += bytes([kinds[kind], len(name)]) + name.encode()
    b += struct.pack("<I", len(data)) + data
open(out, "wb").write(b)
EOF
}

q() { qemu-img create -q -f qcow2 -o cluster_size=512 -u "$@" 16K; }

truncate -s 16K base.raw
printf 'e4time chain seed' | dd of=base.raw conv=notrunc status=none
q -F raw -b base.raw mid.qcow2
q -F qcow2 -b mid.qcow2 top.qcow2
pack "$dir/qcow2-on-qcow2-on-raw" 0 file:top.qcow2:top.qcow2 \
	file:mid.qcow2:mid.qcow2 file:base.raw:base.raw
pack "$dir/qcow2-backing-fifo" 0 file:mid.qcow2:mid.qcow2 fifo:base.raw:
pack "$dir/qcow2-backing-missing" 0 file:top.qcow2:top.qcow2
q -F qcow2 -b b.qcow2 a.qcow2
q -F qcow2 -b a.qcow2 b.qcow2
pack "$dir/qcow2-loop" 0 file:a.qcow2:a.qcow2 file:b.qcow2:b.qcow2
q -F raw -b link.raw l.qcow2
pack "$dir/qcow2-link-out" 0 file:l.qcow2:l.qcow2 \
	link:link.raw:../out/base.raw out:base.raw:base.raw
pack "$dir/qcow2-link-out-allowed" 1 file:l.qcow2:l.qcow2 \
	link:link.raw:../out/base.raw out:base.raw:base.raw
q -F raw -b ../out/base.raw up.qcow2
pack "$dir/qcow2-up-allowed" 1 file:up.qcow2:up.qcow2 out:base.raw:base.raw

# a differencing VHD (tests/mkvhd_child.py, at 1 MiB)
qemu-img create -q -f vpc dyn.vhd 1M
for same in same other; do
	python3 "$src/tests/mkvhd_child.py" dyn.vhd "diff-$same.vhd" "$same"
	pack "$dir/vhd-diff-$same" 0 "file:c.vhd:diff-$same.vhd" \
		file:dyn.vhd:dyn.vhd
done
pack "$dir/vhd-diff-parent-fifo" 0 file:c.vhd:diff-same.vhd fifo:dyn.vhd:

# VMDK: qemu-img's descriptor of a flat extent of 16 sectors, naming
# the extent as given
qemu-img create -q -f vmdk -o subformat=monolithicFlat q.vmdk 8K
vmdk() { # EXTENT-NAME: the descriptor naming it
	sed "s|\"q-flat.vmdk\"|\"$1\"|" q.vmdk
}
head -c 8192 base.raw >x-flat.vmdk
vmdk x-flat.vmdk >x.vmdk
pack "$dir/vmdk-flat" 0 file:x.vmdk:x.vmdk file:x-flat.vmdk:x-flat.vmdk
pack "$dir/vmdk-extent-fifo" 0 file:x.vmdk:x.vmdk fifo:x-flat.vmdk:
pack "$dir/vmdk-extent-link-out" 0 file:x.vmdk:x.vmdk \
	link:x-flat.vmdk:../out/x-flat.vmdk out:x-flat.vmdk:x-flat.vmdk
pack "$dir/vmdk-extent-link-out-allowed" 1 file:x.vmdk:x.vmdk \
	link:x-flat.vmdk:../out/x-flat.vmdk out:x-flat.vmdk:x-flat.vmdk
vmdk ../out/x-flat.vmdk >up.vmdk
pack "$dir/vmdk-extent-up" 0 file:up.vmdk:up.vmdk out:x-flat.vmdk:x-flat.vmdk
pack "$dir/vmdk-extent-up-allowed" 1 file:up.vmdk:up.vmdk \
	out:x-flat.vmdk:x-flat.vmdk
pack "$dir/evidence-fifo" 0 fifo:e.raw:
echo "chain_seeds: $(ls "$dir" | wc -l) seeds in $dir"
