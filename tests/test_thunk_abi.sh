#!/bin/sh
# The face's ABI (docs/real-stack.md): every hsaKmt* symbol the installed ROCr imports is defined
# by the face's libhsakmt.so.1 under the version node ROCr binds to (HSAKMT_1), and the face
# exports nothing else but hsaqm_kfd_transport_provider under HSAQM_KFD_PROVIDER_1: the hook by
# which kfd-ioctl inside the process (the tool library's Lv3) finds the model's KFD
# (docs/kfd-ioctl.md, "The default transport"). $1: the face's libhsakmt.so.1. Skips (77)
# without libhsa-runtime64.
set -eu
lib=$1
rocr=
for d in /usr/lib/x86_64-linux-gnu /usr/lib64 /opt/rocm/lib; do
	[ -e "$d/libhsa-runtime64.so.1" ] && rocr="$d/libhsa-runtime64.so.1" && break
done
if [ -z "$rocr" ]; then
	echo "SKIP: no libhsa-runtime64.so.1 (apt-get install libhsa-runtime64-1)"
	exit 77
fi
imports=$(objdump -T "$rocr" | awk '/\*UND\*/ && $NF ~ /^hsaKmt/ {v = $(NF-1); gsub(/[()]/, "", v); print v " " $NF}' | sort -u)
exports=$(objdump -T "$lib" | awk '!/\*UND\*/ && $4 == ".text" {print $(NF-1) " " $NF}' | sort -u)
status=0
missing=$(printf '%s\n' "$imports" | comm -23 - /dev/fd/3 3<<EOT
$exports
EOT
)
if [ -n "$missing" ]; then
	echo "FAIL: ROCr imports what the face does not define:"; printf '  %s\n' "$missing"; status=1
fi
other=$(printf '%s\n' "$exports" | grep -v '^HSAKMT_1 hsaKmt' |
	grep -v -x 'HSAQM_KFD_PROVIDER_1 hsaqm_kfd_transport_provider' || true)
if [ -n "$other" ]; then
	echo "FAIL: the face exports more than hsaKmt* under HSAKMT_1 and the KFD provider:"
	printf '  %s\n' "$other"; status=1
fi
if ! printf '%s\n' "$exports" | grep -q -x 'HSAQM_KFD_PROVIDER_1 hsaqm_kfd_transport_provider'; then
	echo "FAIL: the face does not export hsaqm_kfd_transport_provider@HSAQM_KFD_PROVIDER_1"; status=1
fi
[ $status -eq 0 ] && echo "PASS: $(printf '%s\n' "$imports" | wc -l) imports of $rocr defined; $(printf '%s\n' "$exports" | wc -l) exports, hsaKmt*@HSAKMT_1 and the KFD provider"
exit $status
