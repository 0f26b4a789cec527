"""Old records read as current ones: one upgrade step per schema version, applied in turn (as asv does).

``read_record`` calls ``upgrade`` between parsing and validation, so every reader sees the current shape and
none needs to know the old ones; it hands over its validation (``check``), so that this module imports no reader.
Each old version keeps its JSON Schema file (``run.v2.schema.json``): a record is checked against the version it
declares *before* its step runs, so a bad old record is reported in its own terms (the file's field names, not the
upgraded ones), and a step may rely on the fields its version requires.
An upgraded record says so: ``upgraded_from`` names the version it was written as and ``missing`` lists the
dotted names of the fields that version did not record, which are null. A field is derived instead where the
code that wrote the old version tells its value (``V2_PRECISIONS``). Readers show such records as older and use them
for no verdict. A current run record that predates a field the code that wrote it tells (its workload, its rules:
``with_workload``, ``with_rules``) has it derived too, and is not older.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from fwbench.workload_entry import ARTICLE_WORKLOAD

#: the timing protocol of every record written before version 3 (``protocol``, runners/measure/protocol.py
#: TIMING_PROTOCOL)
V2_PROTOCOL = 1
#: ``config.precision`` as version 2 wrote it -> the precision policy it was; they trained in float32 alone
V2_PRECISIONS = {"float32 (TF32 off)": "fp32"}


def update_to_3(record: dict[str, Any]) -> dict[str, Any]:
    """A ``fwbench.run/2`` record as ``fwbench.run/3``: timing protocol 1; the precision policy its string names
    (``V2_PRECISIONS``), float32, its flags missing; the article's seconds per epoch derived from the timing; the
    memory phases and the load during the clock missing; JAX's reserved bytes of 0, which measured nothing,
    missing. Sections the run left null stay null."""
    old = copy.deepcopy(record)
    missing = []
    policy = V2_PRECISIONS.get(old["config"]["precision"], old["config"]["precision"])
    old["config"]["precision"] = policy
    missing.append("precision.flags")
    timing, memory, load = old.get("timing"), old.get("memory"), old.get("load")
    if timing is not None:
        each, compile_seconds = timing.get("epoch_seconds_each"), timing.get("compile_seconds")
        derived = each and compile_seconds is not None
        timing["article_epoch_seconds"] = (sum(each) + compile_seconds) / len(each) if derived else None
        if not derived:
            missing.append("timing.article_epoch_seconds")
    if memory is not None:
        memory["phases"] = None
        missing.append("memory.phases")
        if old["framework"]["name"] == "jax" and memory.get("allocator_reserved_bytes") == 0:
            memory["allocator_reserved_bytes"] = None
            missing.append("memory.allocator_reserved_bytes")
    if load is not None:
        load["during_clock"] = None
        missing.append("load.during_clock")
    upgraded = {
        "schema": "fwbench.run/3",
        "upgraded_from": old["schema"],
        "missing": list(dict.fromkeys(missing)),
    }
    del old["schema"]
    added = {"protocol": V2_PROTOCOL, "precision": {"policy": policy, "compute_dtype": "float32", "flags": None}}
    return {**upgraded, **old, **added, **upgraded}


def with_workload(record: dict[str, Any]) -> dict[str, Any]:
    """A run record with ``model.workload``: a record made before the field trained ResNet-18, which the code that
    wrote it tells (not missing, so not "older"); the record as it is otherwise."""
    model = record.get("model")
    if not isinstance(model, dict) or "workload" in model:
        return record
    return {**record, "model": {**model, "workload": ARTICLE_WORKLOAD}}


#: the rules (``rules``: runners/measure/protocol.py RECORD_RULES) of a run record written before it stated them, by
#: its timing protocol: each protocol's records but a few commits' (``RULES_OF_COMMIT``) followed one set of rules
RULES_OF_PROTOCOL = {1: 1, 2: 2, 3: 4}
#: the commits whose records followed earlier rules than the others of their protocol: they ran before a rule changed
#: within the protocol (the commits of the records this repository holds; a record of another such commit is checked
#: by its protocol's rules, and ``generator check`` names a field that the earlier rules made otherwise)
RULES_OF_COMMIT = {
    "b182afd4e2a8fc1e64948d139448133c6c3fa8e6": 1,  # protocol 2, before the end sample judged only unsampled runs
    "6d5f2e5e38122bff1ed45a8a6fc7544ca6297c2a": 2,  # protocol 3, before the busy share was set from the data
    "2349e5c2743ff04c29488c8d25539a58c6fe47cd": 3,  # protocol 3, before ids hashed the timing protocol
}


def with_rules(record: dict[str, Any]) -> dict[str, Any]:
    """A run record with ``rules``: derived from the commit that made it and its timing protocol where it states
    none (the code that wrote it tells them: not missing); the record as it is otherwise."""
    if "rules" in record or not isinstance(record.get("protocol"), int):
        return record
    commit = (record.get("software") or {}).get("git_commit")
    return {**record, "rules": RULES_OF_COMMIT.get(commit, RULES_OF_PROTOCOL.get(record["protocol"], 1))}


#: record schema -> the step that turns it into the next version
STEPS: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "fwbench.run/2": update_to_3,
}


def upgrade(record: Any, check: Callable[[dict[str, Any]], None]) -> Any:
    """``record`` in the current version of its kind: each step from its declared version on, the record passed to
    ``check`` (``fwbench.records.validate``: against its version's schema) before each step. Records already
    current, of a kind without steps, or not records at all are returned as they are, for validation to judge."""
    while isinstance(record, dict) and isinstance(record.get("schema"), str) and record["schema"] in STEPS:
        check(record)
        record = STEPS[record["schema"]](record)
    if isinstance(record, dict) and str(record.get("schema", "")).startswith("fwbench.run/"):
        record = with_rules(with_workload(record))
    return record
