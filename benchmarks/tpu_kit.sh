#!/usr/bin/env bash
# The TPU kit: one call of a borrowed TPU machine that has no package registry (docs/design.md, "On a TPU"). It
# installs what the machine lacks from its own package index (flax, optax, fwbench's own needs), its PyTorch CPU
# wheel (/opt/wheels) and the wheels carried in .whl-tpu (torchax: `make tpu-wheels`), then runs the matrices
# of TPU_KIT_PLAN on the TPU (default: the GPT's quick matrix, then ResNet-18's; JAX and PyTorch via torchax),
# TPU_KIT_REPEATS rounds each (default 3: a sitting decides a pair from three paired rounds), within
# TPU_KIT_MINUTES (default 8; a call may run 10). The runs
# are made from a clean checkout of the commit at hand (TPU_KIT_TREE, a git worktree of TPU_KIT_REF, default HEAD),
# so that their records name that commit unmodified, whatever else the working tree holds; their records land in
# its results/runs/<machine> and are packed with the log into $OUT/tpu_kit.tar.gz. A later call on the same
# machine installs nothing and resumes where this one stopped.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-/tmp/tpu-kit-out}
mkdir -p "$out"
exec > >(tee "$out/tpu_kit.log") 2>&1
start=$(date +%s)
ref=${TPU_KIT_REF:-HEAD}  # a machine given the tree without its latest commits fetches them first (a git bundle)
tree=${TPU_KIT_TREE:-/tmp/fwbench-tpu-$(git rev-parse --short "$ref")}
[ -d "$tree" ] || git worktree add --detach --force "$tree" "$ref" >/dev/null || exit 1
[ -d .whl-tpu ] && cp -r .whl-tpu "$tree"/
cd "$tree" || exit 1
minutes=${TPU_KIT_MINUTES:-8}
lib=${TPU_KIT_LIB:-/tmp/fwbench-tpu-lib}  # kept between calls on one machine
pip_install() { PIP_CONFIG_FILE=/dev/null python3 -m pip install --isolated -q --disable-pip-version-check \
  --only-binary=:all: --target "$lib" "$@"; }
if [ -d "$lib/torchax" ]; then echo "tpu_kit: installed before, in $lib"; else
echo "tpu_kit: installing into $lib"
pip_install --index-url file:///opt/pypi/simple flax optax psutil jsonschema tqdm tabulate || exit 1
pip_install --index-url file:///opt/pypi/simple --find-links /opt/wheels torch || echo "tpu_kit: no PyTorch wheel here: torchax runs will fail"
pip_install --no-index --no-deps .whl-tpu/*.whl || echo "tpu_kit: no wheels carried in .whl-tpu (make tpu-wheels)"
fi
# appended, so that the machine's own JAX stays first; the checkout, for `python3 -m runners.cli`
export PYTHONPATH="${PYTHONPATH:+$PYTHONPATH:}$lib:$PWD" PYTHONUNBUFFERED=1
echo "tpu_kit: code $(git rev-parse --short HEAD 2>/dev/null || echo "(no git here)")"
echo "tpu_kit: installed in $(( $(date +%s) - start )) s"
# one deadline for every matrix (no run starts that would end past it), 20 s before the call's end for the packing
end=$(( start + minutes * 60 - 20 ))
deadline=$(date -u -d "@$end" +%Y-%m-%dT%H:%M:%SZ)
# what to run: matrices' arguments separated by ";" (an entry's own --repeats wins), in order, each in what is left of the call (a call too short
# for all of them decides the first ones; the next call on the same machine resumes the one that stopped)
plan=${TPU_KIT_PLAN:---profile quick-gpt;--profile quick}
repeats=${TPU_KIT_REPEATS:-3}
IFS=';' read -ra matrices <<< "$plan"
for args in "${matrices[@]}"; do
  [ $(( end - $(date +%s) )) -ge 60 ] || { echo "tpu_kit: no time left for: $args"; continue; }
  # shellcheck disable=SC2086  # each entry is a list of arguments
  python3 -m runners.cli matrix --device tpu --repeats "$repeats" $args --deadline "$deadline" --no-progress
done
tar -czf "$out/tpu_kit.tar.gz" results/runs/tpu-* "$out/tpu_kit.log" 2>/dev/null
echo "tpu_kit: done in $(( $(date +%s) - start )) s; in $out: $(cd "$out" && echo *)"
