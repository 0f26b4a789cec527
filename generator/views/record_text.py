"""Texts that fwbench itself writes into its records (how a figure was computed, why a version set is good, what
a sub-score measures), in the language being written.

Each text fwbench writes is marked here for the catalogue; a page shows a recorded text through ``recorded``,
which translates the known ones and leaves any other (a newer wording, a framework's own message) as recorded.
"""

from __future__ import annotations

from generator.i18n import N_, translate

#: every English text fwbench writes into a record's prose fields, as it writes it
RECORDED = frozenset(
    (
        N_("3 × forward FLOPs per image × images/s ÷ the device's peak float32 FLOP/s"),
        N_("3 × forward FLOPs per image × images/s ÷ the device's peak tf32 FLOP/s"),
        N_("3 × forward FLOPs per image × images/s ÷ the device's peak bfloat16 FLOP/s"),
        N_("3 × forward FLOPs per token × tokens/s ÷ the device's peak float32 FLOP/s"),
        N_("3 × forward FLOPs per token × tokens/s ÷ the device's peak tf32 FLOP/s"),
        N_("3 × forward FLOPs per token × tokens/s ÷ the device's peak bfloat16 FLOP/s"),
        N_(
            "fwbench.probe-rubric/1: location 2 (planted line) / 1 (file only); names_shapes 2 (message names every "
            "offending shape, dtype or NaN); names_layer 1 (message names the layer, where a layer is at fault); "
            "brevity 1 (traceback <= 40 lines) / 0.5 (<= 120 lines); no error, crash or timeout scores 0"
        ),
        N_(
            "fwbench.probe-rubric/2: location 2 (planted line) / 1 (file only); names_shapes 2 (message names every "
            "offending shape, dtype or NaN); names_layer 1 (message names the layer, where a layer is at fault); "
            "brevity 1 (traceback <= 40 lines) / 0.5 (<= 120 lines); no error, crash, timeout or an error that does "
            "not report the planted bug (its message names neither every offending token nor a word of the bug's "
            "kind: shape, dimension, target, dtype, NaN, infinity) scores 0"
        ),
        # memory.host_peak_basis: runners.measure.host_memory.basis_text of each of its BASES
        N_(
            "this process's peak RSS (getrusage) plus its child processes' summed PSS (peak of samples every 250 ms), "
            "above the post-import baseline"
        ),
        N_(
            "this process's peak RSS (getrusage) plus its child processes' summed USS (peak of samples every 250 ms), "
            "above the post-import baseline"
        ),
        N_(
            "this process's peak RSS (getrusage) plus its child processes' summed RSS (peak of samples every 250 ms), "
            "above the post-import baseline"
        ),
    )
)


#: a probe score's parts (``score.parts``) as a reader reads them
SCORE_PARTS = {
    "location": N_("location"),
    "names_shapes": N_("names shapes"),
    "names_layer": N_("names the layer"),
    "brevity": N_("brevity"),
}


def score_part(name: str) -> str:
    """A probe score's part by name, in the language being written (an unknown one with spaces for underscores)."""
    return translate(SCORE_PARTS[name]) if name in SCORE_PARTS else name.replace("_", " ")


def recorded(value: str | None) -> str | None:
    """A recorded text in the language being written when fwbench wrote it, else as recorded."""
    return translate(value) if value in RECORDED else value
