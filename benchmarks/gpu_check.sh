#!/usr/bin/env bash
# benchmarks/gpu_check.py in one call on a lent GPU machine (README, "GPU check kit"). Only a few files come back
# from such a machine, so the log goes live to $OUT (it is kept even if the call is killed), and the records, the
# site and the table are packed into $OUT/gpu_check.tar.gz. The work stays in $GPU_KIT_WORK (default
# /tmp/gpu-kit): a second call on the same machine resumes the runs that finished. Arguments go to gpu_check.py.
set -uo pipefail
cd "$(dirname "$0")/.."
work=${GPU_KIT_WORK:-/tmp/gpu-kit}
out=${OUT:-$work-out}
mkdir -p "$out"
PYTHONUNBUFFERED=1 "${PYTHON:-python3}" benchmarks/gpu_check.py --out "$work" "$@" 2>&1 | tee "$out/gpu_check.log"
status=${PIPESTATUS[0]}
cp "$work/gpu_check.txt" "$work/gpu_check.json" "$out/" 2>/dev/null
tar -czf "$out/gpu_check.tar.gz" -C "$work" . 2>/dev/null
echo "gpu_check.sh: exit $status; in $out: $(cd "$out" && echo *)"
exit "$status"
