"""Which trainer a machine's records of a framework are judged by: the newest it ran there.

A change to a trainer (``harness.digest``, the code that shapes its step) is checked against the frameworks' minimal
loops before its runs are trusted, so once a framework's newer trainer has runs on a machine, that machine's
configurations measured only by an older trainer are superseded (shown as older, never judged) until they are
measured again; a configuration with runs of both is judged on the newer (``fwbench.pairing.newest_harness``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from fwbench.pairing import newest_digest
from fwbench.records import harness_digest
from generator.records.identity import ConfigKey

#: whose trainer a run ran: its machine, framework and model
Trainer = tuple[str, str, str | None]


def trainer_of(record: dict[str, Any], key: ConfigKey) -> Trainer:
    """The machine, framework and model of a run of the configuration ``key``."""
    return key.machine_id, key.framework, (record.get("model") or {}).get("name")


def newest_trainers(summaries: Iterable) -> dict[Trainer, str | None]:
    """Each (machine, framework, model) → the harness digest of its latest successful run there, at any setting
    (``fwbench.pairing.newest_digest``; None: unversioned records); ``summaries``: ``aggregate.Summary`` objects."""
    runs: dict[Trainer, list[dict[str, Any]]] = {}
    for summary in summaries:
        for item in summary.runs:
            if item.record["status"] == "ok":
                runs.setdefault(trainer_of(item.record, summary.key), []).append(item.record)
    return {trainer: newest_digest(records) for trainer, records in runs.items()}


def older_trainer(trainers: dict[Trainer, str | None], summary) -> bool:
    """Whether a configuration (an ``aggregate.Summary``) was measured only by an older trainer than its framework's
    newest on its machine (``trainers``: ``newest_trainers``)."""
    digests = {harness_digest(item.record) for item in summary.runs if item.record["status"] == "ok"}
    trainer = trainer_of(summary.runs[0].record, summary.key)
    return bool(digests) and trainer in trainers and trainers[trainer] not in digests
