"""Turn one captured probe into a ``fwbench.probe/1`` record: measures, score and provenance."""

from __future__ import annotations

from fwbench.frameworks import framework
from fwbench.probe_outcome import reports_planted_bug
from runners.probes import analysis, rubric
from runners.probes.catalog import EXPECTED_TOKENS, LAYER_NAMES, ProbeSpec, planted_line, program_path, relative_to_repo

SCHEMA = "fwbench.probe/1"


def installed_version(name: str, software: dict) -> str | None:
    """Framework ``name``'s installed version from the record's software block (the first of its distributions
    there), or None: for probes that died before reporting it."""
    packages = software.get("packages", {})
    return next((packages[d] for d in framework(name).distributions if packages.get(d)), None)


def child_software(software: dict, capture: dict) -> dict:
    """``software`` (this process's provenance) with the Python and package versions of the child's interpreter
    where it reported them: a probe of another version runs in that version's environment."""
    reported = {key: capture[key] for key in ("python", "packages") if capture.get(key)}
    return {**software, **reported}


def build_record(
    spec: ProbeSpec,
    capture: dict,
    *,
    machine_id: str,
    software: dict,
    started_at: str,
    finished_at: str,
    environment: str | None = None,
) -> dict:
    """The record of ``spec`` from the child's ``capture`` (see capture.run_child) and provenance; ``environment``
    names the version environment the child ran in (``runners envs``), None for this interpreter.

    Text is stored raw (``message``, ``traceback``) and without colour codes (``*_clean``); the
    measures are computed on the clean text. Escaping for HTML is the renderer's job.
    """
    message, trace = capture.get("message"), capture.get("traceback")
    message_clean, trace_clean = analysis.strip_ansi(message), analysis.strip_ansi(trace)
    warnings = capture.get("warnings", [])
    planted = {"file": relative_to_repo(program_path(spec.framework)), "line": planted_line(spec.framework, spec.bug)}
    errored = capture["outcome"] == "error"
    if errored:
        shown = [trace_clean, *map(analysis.strip_ansi, warnings)]
        locations = analysis.source_locations(capture["frames"], shown)
        points_to_file, points_to_line = analysis.points_to(locations, planted["file"], planted["line"])
    else:
        points_to_file = points_to_line = None
    tokens = list(EXPECTED_TOKENS[spec.bug])
    layer_name = LAYER_NAMES[spec.bug]
    names_shapes = analysis.names_all_tokens(message_clean, tokens)
    layer_class = framework(spec.framework).layer_class
    names_layer = analysis.names_layer(message_clean, layer_name, layer_class)
    traceback_lines = analysis.count_lines(trace_clean)
    software = child_software(software, capture)
    reports_bug = reports_planted_bug(
        {"outcome": capture["outcome"], "bug": spec.bug, "names_shapes": names_shapes, "message_clean": message_clean}
    )
    return {
        "schema": SCHEMA,
        "record_id": spec.record_id,
        "bug": spec.bug,
        "tooling": spec.tooling,
        "framework": {
            "name": spec.framework,
            "version": capture.get("framework_version") or installed_version(spec.framework, software),
            "mode": spec.mode,
        },
        "environment": environment,
        "device": "cpu",
        "outcome": capture["outcome"],
        "exception_type": capture.get("exception_type"),
        "message": message,
        "message_clean": message_clean,
        "traceback": trace,
        "traceback_clean": trace_clean,
        "traceback_lines": traceback_lines,
        "traceback_frames": len(capture["frames"]) if errored else None,
        "expected_tokens": tokens,
        "names_shapes": names_shapes,
        "planted": planted,
        "points_to_file": points_to_file,
        "points_to_line": points_to_line,
        "layer_name": layer_name,
        "layer_class": layer_class if layer_name else None,
        "names_layer": names_layer,
        "reports_bug": reports_bug,
        "seconds_to_error": capture.get("seconds_to_error"),
        "import_seconds": capture.get("import_seconds"),
        "wall_seconds": capture["wall_seconds"],
        "compile_cache": capture.get("compile_cache"),
        "result": capture.get("result"),
        "warnings": warnings,
        "exit_code": capture["exit_code"],
        "score": rubric.score(
            capture["outcome"],
            points_to_file,
            points_to_line,
            names_shapes,
            names_layer,
            has_layer=layer_name is not None,
            traceback_lines=traceback_lines,
            reports_bug=reports_bug,
        ),
        "stderr_tail": capture["stderr_tail"],
        "machine_id": machine_id,
        "software": software,
        "started_at": started_at,
        "finished_at": finished_at,
    }
