#!/bin/sh
# Writes hgx_h100/: the sysfs files railyard and NCCL read on an HGX H100 host
# (8 GPUs, 8 ConnectX-7, 2 NUMA nodes of 56 cores x 2 threads), as a test tree for
# `railyard export --format nccl-xml --sysfs-root`. The GPU bus ids are those of
# a DGX H100; each GPU shares a PCIe switch (upstream port bus+1, downstream
# ports bus+2) with one NIC. A management Ethernet NIC at 0000:10:00.0, an NVMe
# drive at 0000:11:00.0 and an NVSwitch (class 0x068000) are there too: none is a
# GPU or an RDMA NIC. Attribute files follow Documentation/ABI/testing/sysfs-bus-pci.
#   sh tests/data/sysfs/make_hgx_h100.sh tests/data/sysfs/hgx_h100
set -eu
out=$1
rm -rf "$out"
mkdir -p "$out/bus/pci/devices" "$out/class/infiniband" "$out/class/net"
cpus0=000000ff,ffffffff,ffff0000,00000000,00ffffff,ffffffff,ffffffff  # CPUs 0-55, 112-167
cpus1=ffffff00,00000000,0000ffff,ffffffff,ff000000,00000000,00000000  # CPUs 56-111, 168-223
# fn DIR CLASS VENDOR DEVICE NUMA CPUS: one PCI function's attribute files.
fn() {
  mkdir -p "$1"
  printf '%s\n' "$2" > "$1/class"
  printf '%s\n' "$3" > "$1/vendor"
  printf '%s\n' "$4" > "$1/device"
  printf '%s\n' "$5" > "$1/numa_node"
  printf '%s\n' "$6" > "$1/local_cpus"
  printf '32.0 GT/s PCIe\n' > "$1/max_link_speed"
  printf '16\n' > "$1/max_link_width"
  b=$(basename "$1")
  rel=${1#"$out"/}
  ln -s "../../../$rel" "$out/bus/pci/devices/$b"
}
n=0
for gpu in 1b 43 52 61 9d c3 d1 df; do
  g=$((0x$gpu))
  root=$(printf '%02x' $((g - 3)))
  usp=$(printf '%02x' $((g - 2)))
  dsp=$(printf '%02x' $((g - 1)))
  nic=$(printf '%02x' $((g + 1)))
  if [ "$n" -lt 4 ]; then numa=0; cpus=$cpus0; else numa=1; cpus=$cpus1; fi
  rp="$out/devices/pci0000:$root/0000:$root:01.0"
  fn "$rp" 0x060400 0x8086 0x352a "$numa" "$cpus"
  fn "$rp/0000:$usp:00.0" 0x060400 0x10b5 0xc030 "$numa" "$cpus"
  fn "$rp/0000:$usp:00.0/0000:$dsp:00.0" 0x060400 0x10b5 0xc030 "$numa" "$cpus"
  fn "$rp/0000:$usp:00.0/0000:$dsp:01.0" 0x060400 0x10b5 0xc030 "$numa" "$cpus"
  fn "$rp/0000:$usp:00.0/0000:$dsp:00.0/0000:$gpu:00.0" 0x030200 0x10de 0x2330 "$numa" "$cpus"
  nicdir="$rp/0000:$usp:00.0/0000:$dsp:01.0/0000:$nic:00.0"
  fn "$nicdir" 0x020700 0x15b3 0x1021 "$numa" "$cpus"
  mkdir -p "$nicdir/infiniband/mlx5_$n/ports/1" "$nicdir/net/ibp${g}s0"
  ln -s "../../../0000:$nic:00.0" "$nicdir/infiniband/mlx5_$n/device"
  ln -s "../../../0000:$nic:00.0" "$nicdir/net/ibp${g}s0/device"
  ln -s "../../${nicdir#"$out"/}/infiniband/mlx5_$n" "$out/class/infiniband/mlx5_$n"
  ln -s "../../${nicdir#"$out"/}/net/ibp${g}s0" "$out/class/net/ibp${g}s0"
  n=$((n + 1))
done
# Devices that are neither GPUs nor RDMA NICs.
fn "$out/devices/pci0000:00/0000:00:1c.0" 0x060400 0x8086 0x1bb8 0 "$cpus0"
fn "$out/devices/pci0000:00/0000:00:1c.0/0000:10:00.0" 0x020000 0x8086 0x1533 0 "$cpus0"
mkdir -p "$out/devices/pci0000:00/0000:00:1c.0/0000:10:00.0/net/eno1"
ln -s ../../../0000:10:00.0 "$out/devices/pci0000:00/0000:00:1c.0/0000:10:00.0/net/eno1/device"
ln -s ../../devices/pci0000:00/0000:00:1c.0/0000:10:00.0/net/eno1 "$out/class/net/eno1"
fn "$out/devices/pci0000:00/0000:00:1d.0" 0x060400 0x8086 0x1bb9 0 "$cpus0"
fn "$out/devices/pci0000:00/0000:00:1d.0/0000:11:00.0" 0x010802 0x144d 0xa80a 0 "$cpus0"
fn "$out/devices/pci0000:00/0000:00:1e.0" 0x060400 0x8086 0x1bba 0 "$cpus0"
fn "$out/devices/pci0000:00/0000:00:1e.0/0000:07:00.0" 0x068000 0x10de 0x22a3 0 "$cpus0"
