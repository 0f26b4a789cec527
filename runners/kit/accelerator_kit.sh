#!/usr/bin/env bash
# The accelerator kit in one call of a borrowed GPU or TPU machine without a package registry (RUNNING.md,
# "Accelerator kit"): `python -m runners.cli kit`, run from a clean checkout of the commit at hand (KIT_TREE, a git
# worktree of KIT_REF, default the commit .whl-tpu/head.bundle carries where the files are its, else HEAD), so that
# its records name that commit unmodified, whatever else the working tree holds. On a TPU machine (KIT_DEVICE=tpu,
# or auto: /opt/pypi/simple and a Google PCI device, the test of runners.measure.provenance.tpu_info, which needs
# psutil, not there yet) it first installs what the machine lacks,
# once per machine, into KIT_LIB: flax, optax and fwbench's own needs from the machine's own package index, its
# PyTorch CPU wheel (/opt/wheels) and the wheels carried in .whl-tpu (torchax: `make tpu-wheels`). Where the
# interpreter still lacks jsonschema or MkDocs, the carried folder of `make gpu-kit` goes on its path
# (runners.kit.carried). The kit's matrices run under one deadline, KIT_MINUTES (default 8; a call may run 10) from
# the call's start, less 20 s for the packing:
# KIT_PLAN's (`runners matrix` arguments separated by ";"; a TPU's default: the GPT's quick matrix, then ResNet-18's),
# KIT_REPEATS rounds each (default 3; KIT_PLAN=none: no matrix), else a GPU's parts. Before them, where KIT_PARITY is
# set (even empty), `benchmarks/attention_parity.py` with its arguments, to $OUT/parity.json; then KIT_HARNESS's
# harness checks (`benchmarks/idiomatic_loop.py --device` arguments separated by ";", an entry starting "@REF " run
# from a worktree of REF: trainers A/B in one call), each to $OUT/harness-K.json. The log goes live to
# $OUT/accelerator_kit.log (kept even if the call is killed); the table and its JSON beside it;
# $OUT/accelerator_kit-runs.tar.gz holds the machine folders of results/runs that this call wrote to (unpack it into
# the checkout), and accelerator_kit-site.tar.gz the site and env.json, apart, so that a site past the 16 MiB a file
# may bring back never holds the records back. A later call on the same machine installs nothing, reuses the worktree
# and KIT_WORK, and goes on where this one stopped. Arguments go to `runners kit`.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-/tmp/accelerator-kit-out}
mkdir -p "$out"
exec > >(tee "$out/accelerator_kit.log") 2>&1
start=$(date +%s)
end=$(( start + ${KIT_MINUTES:-8} * 60 - 20 ))
device=${KIT_DEVICE:-auto}
if [ "$device" = auto ] && [ -d /opt/pypi/simple ] && grep -qsx 0x1ae0 /sys/bus/pci/devices/*/vendor; then
  device=tpu
fi
# the carried folder of `make gpu-kit` (jsonschema, MkDocs), seen from the worktree
export FWBENCH_KIT_DIR=${FWBENCH_KIT_DIR:-$PWD/build/gpu-kit}
# how many tracked files of commit $1 this checkout's files differ from, -1 where $1 is no commit here (a scratch
# index holds $1's tree, so that files the checkout's own index lacks are compared too)
differing() {
  local scratch count=-1
  scratch=$(mktemp -d)
  if GIT_INDEX_FILE=$scratch/index git read-tree "$1" 2>/dev/null; then
    GIT_INDEX_FILE=$scratch/index git update-index -q --refresh
    count=$(GIT_INDEX_FILE=$scratch/index git diff --name-only -- . | wc -l)
  fi
  rm -rf "$scratch"
  echo "$count"
}
# a copy of a checkout whose .git lags its files (a machine sent the tree with an older .git) would measure old code:
# the commit `make tpu-wheels` carries (.whl-tpu/head.bundle) is measured where these files are exactly its tree
carried=.whl-tpu/head.bundle
if [ -z "${KIT_REF:-}" ] && [ -f "$carried" ] && git fetch -q "$carried" "+HEAD:refs/heads/fwbench-kit-carried" 2>/dev/null \
  && [ "$(differing fwbench-kit-carried)" -eq 0 ]; then
  KIT_REF=fwbench-kit-carried
  echo "accelerator_kit.sh: measuring the carried commit $(git rev-parse --short "$KIT_REF"), whose files these are"
fi
ref=${KIT_REF:-HEAD}
# otherwise, without KIT_REF, the kit stops before it spends device time; KIT_REF names the commit to measure
edited=$(differing "$ref")
[ "$edited" -ge 0 ] || { echo "accelerator_kit.sh: KIT_REF=$ref: no such commit here"; exit 2; }
if [ "$edited" -gt 0 ]; then
  echo "accelerator_kit.sh: this checkout's files differ from $ref ($(git rev-parse --short "$ref")) in $edited" \
    "tracked files: commit them and run make tpu-wheels (which carries HEAD), or set KIT_REF"
  [ -n "${KIT_REF:-}" ] || { echo "accelerator_kit.sh: measured nothing (KIT_REF=HEAD measures HEAD's code anyway)"; exit 2; }
  echo "accelerator_kit.sh: the runs measure $ref's code, not the edits"
fi
tree=${KIT_TREE:-/tmp/fwbench-kit-$(git rev-parse --short "$ref")}
[ -d "$tree" ] || git worktree add --detach --force "$tree" "$ref" >/dev/null || exit 1
[ -d .whl-tpu ] && cp -r .whl-tpu "$tree"/
cd "$tree" || exit 1
python=${PYTHON:-python3}
if [ "$device" = tpu ]; then
  lib=${KIT_LIB:-/tmp/fwbench-tpu-lib}  # kept between calls on one machine
  pip_install() { PIP_CONFIG_FILE=/dev/null "$python" -m pip install --isolated -q --disable-pip-version-check \
    --only-binary=:all: --target "$lib" "$@"; }
  if [ -d "$lib/torchax" ]; then echo "accelerator_kit.sh: installed before, in $lib"; else
    echo "accelerator_kit.sh: installing into $lib"
    pip_install --index-url file:///opt/pypi/simple flax optax psutil jsonschema tqdm tabulate || exit 1
    pip_install --index-url file:///opt/pypi/simple --find-links /opt/wheels torch ||
      echo "accelerator_kit.sh: no PyTorch wheel here: torchax runs will fail"
    pip_install --no-index --no-deps .whl-tpu/*.whl ||
      echo "accelerator_kit.sh: no wheels carried in .whl-tpu (make tpu-wheels)"
    pip_install --index-url file:///opt/pypi/simple mkdocs mkdocs-material mkdocs-gen-files ||
      echo "accelerator_kit.sh: no MkDocs in the machine's index: the kit builds no site here"
  fi
  # appended, so that the machine's own JAX stays first
  export PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}$lib"
fi
# fwbench's records need jsonschema as they are imported, before the kit could put the carried folder on its path
carried=$("$python" -m runners.kit.carried) || exit 1
[ -z "$carried" ] || export PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}$carried"
export PYTHONUNBUFFERED=1
echo "accelerator_kit.sh: device $device, code $(git rev-parse --short HEAD 2>/dev/null || echo "(no git here)")," \
  "ready in $(( $(date +%s) - start )) s"
work=${KIT_WORK:-/tmp/accelerator-kit}
mkdir -p "$work"
harness_status=0 k=0
left=$(( end - $(date +%s) ))  # (timeout 0 would mean none)
if [ -n "${KIT_PARITY+set}" ] && [ "$left" -le 60 ]; then
  echo "accelerator_kit.sh: no time left for the attention parity"
elif [ -n "${KIT_PARITY+set}" ]; then  # set, even empty: the fused attention against the written-out one, first
  read -ra words <<< "$KIT_PARITY"
  timeout "$left" "$python" benchmarks/attention_parity.py --device "$device" "${words[@]}" --out "$out/parity.json"
  harness_status=$?
  echo "accelerator_kit.sh: attention parity (${KIT_PARITY:-its defaults}): exit $harness_status"
fi
IFS=';' read -ra entries <<< "${KIT_HARNESS:-}"
for entry in "${entries[@]}"; do
  read -ra words <<< "$entry"
  [ ${#words[@]} -gt 0 ] || continue
  k=$(( k + 1 )) dir=$PWD entry=${words[*]}
  if [[ ${words[0]} == @* ]]; then  # another trainer's commit, in a worktree of its own
    entry_ref=${words[0]#@}
    words=("${words[@]:1}")
    dir=$tree-$(git rev-parse --short "$entry_ref") || continue
    [ -d "$dir" ] || git worktree add --detach --force "$dir" "$entry_ref" >/dev/null || continue
  fi
  left=$(( end - $(date +%s) ))
  [ "$left" -gt 60 ] || { echo "accelerator_kit.sh: no time left for harness check $k: $entry"; break; }
  (cd "$dir" && timeout "$left" "$python" benchmarks/idiomatic_loop.py --device "$device" "${words[@]}" \
    --out "$out/harness-$k.json")
  code=$?
  echo "accelerator_kit.sh: harness check $k ($entry) from $(git -C "$dir" rev-parse --short HEAD): exit $code"
  [ "$code" -le "$harness_status" ] || harness_status=$code
done
# the record files and their times before the kit runs: the machine folders of any record new or changed after it are
# what this call wrote to (the matrix's lock file beside them is not a record) (a folder's mtime could miss a record written within the clock tick of a marker file's)
records() { find results/runs -type f -printf '%T@ %p\n' 2>/dev/null | sort; }
before=$(records)
if [ "${KIT_PLAN:-}" = none ]; then
  status=$harness_status
else
  "$python" -m runners.cli kit --out "$work" --results results --device "$device" \
    --deadline "$(date -u -d "@$end" +%Y-%m-%dT%H:%M:%SZ)" ${KIT_PLAN:+"--plan=$KIT_PLAN"} \
    ${KIT_REPEATS:+--repeats "$KIT_REPEATS"} "$@"
  status=$?
fi
cp "$work/accelerator_kit.txt" "$work/accelerator_kit.json" "$out/" 2>/dev/null
mapfile -t written < <(comm -13 <(echo "$before") <(records) | cut -d' ' -f2- | awk -F/ 'NF > 3 { print $1 "/" $2 "/" $3 }' | sort -u)
mapfile -t made < <(cd "$work" && ls -d site env.json 2>/dev/null)
[ ${#written[@]} -eq 0 ] || tar -czf "$out/accelerator_kit-runs.tar.gz" "${written[@]}"
[ ${#made[@]} -eq 0 ] || tar -czf "$out/accelerator_kit-site.tar.gz" -C "$work" "${made[@]}"
echo "accelerator_kit.sh: exit $status in $(( $(date +%s) - start )) s; in $out: $(cd "$out" && echo *)"
exit "$status"
