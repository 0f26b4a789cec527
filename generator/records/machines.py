"""The machines the run records were made on, with the provenance of each one's newest successful run."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from generator.i18n import N_, Nn_
from generator.message import LIST, Joined, Message, Text
from generator.records.load import Loaded


@dataclass(frozen=True)
class Machine:
    """Hardware and software provenance of one machine, taken from its newest successful run."""

    machine_id: str
    hardware: dict[str, Any] | None
    software: dict[str, Any] | None
    n_runs: int
    n_failed: int
    first: str
    last: str

    @property
    def device_kind(self) -> str:
        """What the runs trained on (``cpu``, ``gpu``, ``tpu``); a machine that recorded no hardware counts as a CPU."""
        return self.hardware["device_kind"] if self.hardware else "cpu"

    @property
    def is_gpu(self) -> bool:
        """True when the runs used a GPU."""
        return self.device_kind == "gpu"

    @property
    def device(self) -> str:
        """The device's name, or the machine id when no run recorded hardware."""
        return self.hardware["device_name"] if self.hardware else self.machine_id


#: a TPU machine's title: its chip, how many of them and their topology (``TPU v5 lite (TPU, 1 chip, 1x1)``)
TPU_TITLE, TPU_TITLE_PLURAL = Nn_("{device} (TPU, {n} chip, {topology})", "{device} (TPU, {n} chips, {topology})")


def machine_title(machine: Machine | None, machine_id: str) -> Text:
    """A machine as every page names it, saying CPU, GPU or TPU: ``NVIDIA H200 (GPU)``, ``TPU v5 lite (TPU, 1 chip,
    1x1)``, ``AMD EPYC (CPU, 2 threads, AVX-512, fingerprint 3d8bd5)`` (two VMs may report the same CPU name: their
    widest vector extension is what a reader tells them apart by, the machine id's fingerprint what always does); the
    machine id when no run recorded hardware."""
    if machine is None or not machine.hardware:
        return machine_id
    if machine.is_gpu:
        return Message(N_("{device} (GPU)"), {"device": machine.device})
    if machine.device_kind == "tpu":
        found = machine.hardware
        values = {"device": machine.device, "n": found["device_count"], "topology": found["tpu_topology"]}
        return Message(TPU_TITLE, values, TPU_TITLE_PLURAL)
    values = {
        "device": machine.device,
        "threads": machine.hardware["cpu_threads"],
        "fingerprint": machine_id.rsplit("-", 1)[-1],
    }
    isa = widest_isa(machine.hardware.get("fingerprint"))
    if isa is None:  # an older record without a fingerprint, or one that lists no vector extension
        return Message(N_("{device} (CPU, {threads} threads, fingerprint {fingerprint})"), values)
    return Message(N_("{device} (CPU, {threads} threads, {isa}, fingerprint {fingerprint})"), {**values, "isa": isa})


#: (prefix of a fingerprint's ISA flag, the name readers know), widest first: what tells two CPUs of one marketing
#: name apart where their speed differs most (an AVX-512 EPYC and an AVX2 one), the fingerprint's hash coming after
WIDEST_ISA = (("amx_", "AMX"), ("avx512", "AVX-512"), ("sve", "SVE"), ("avx2", "AVX2"), ("avx", "AVX"))


def widest_isa(fingerprint: dict | None) -> str | None:
    """The widest vector or matrix extension a CPU fingerprint lists (``AVX-512``), None where it lists none."""
    flags = (fingerprint or {}).get("isa") or ()
    return next((name for prefix, name in WIDEST_ISA if any(flag.startswith(prefix) for flag in flags)), None)


#: the bfloat16 extensions a CPU fingerprint may list (runners/measure/cpu_identity.py), by its architecture: x86's
#: flags, told by its vendor id, and Arm's feature
BF16_ISA = {"x86": ("avx512_bf16", "amx_bf16"), "arm": ("bf16",)}
X86_VENDORS = ("GenuineIntel", "AuthenticAMD", "HygonGenuine")


def no_bf16_isa(machine: Machine | None) -> Message | None:
    """That a CPU's fingerprint lists none of its architecture's bf16 extensions (``this CPU lists no bf16
    instructions (avx512_bf16, amx_bf16) in its fingerprint``): a fact from the record, set beside its bf16 figures,
    not a cause; None off a CPU, without a fingerprint (older records), or where it lists one."""
    fingerprint = (machine.hardware or {}).get("fingerprint") if machine and machine.device_kind == "cpu" else None
    if not fingerprint:
        return None
    names = BF16_ISA["x86" if fingerprint.get("vendor") in X86_VENDORS else "arm"]
    if set(names) & set(fingerprint.get("isa") or ()):
        return None
    return Message(
        N_("this CPU lists no bf16 instructions ({names}) in its fingerprint"), {"names": Joined(names, LIST)}
    )


def machines(runs: list[Loaded]) -> list[Machine]:
    """One Machine per machine id seen in the run records."""
    by_machine: dict[str, list[Loaded]] = defaultdict(list)
    for item in runs:
        by_machine[item.machine_id].append(item)
    found = []
    for machine_id, items in sorted(by_machine.items()):
        with_hw = [i.record for i in items if i.record.get("hardware")]
        newest = max(with_hw, key=lambda r: r["finished_at"]) if with_hw else None
        found.append(
            Machine(
                machine_id=machine_id,
                hardware=newest["hardware"] if newest else None,
                software=newest["software"] if newest else None,
                n_runs=len(items),
                n_failed=sum(1 for i in items if i.record["status"] != "ok"),
                first=min(i.record["started_at"] for i in items),
                last=max(i.record["finished_at"] for i in items),
            )
        )
    return found
