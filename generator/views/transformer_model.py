"""The transformer's model as its records state it (``model``: sizes, trainable_params, flops_per_token), and its size
in words, for the transformer page and the home page's answer."""

from __future__ import annotations

from typing import Any

from generator.i18n import _
from generator.records.aggregate import Table
from generator.spacing import fill


def model_of(table: Table) -> dict[str, Any]:
    """The model as ``table``'s records state it (``model``: sizes, trainable_params, flops_per_token), or {}."""
    return next((r.record["model"] for r in table.runs if r.record.get("model")), {})


def flops_of(table: Table) -> int:
    """The forward FLOPs per token of ``table``'s model (0 where its records do not say): larger models come first."""
    return model_of(table).get("flops_per_token") or 0


def model_words(model: dict[str, Any]) -> str:
    """A model's size in a few words from its record: ``a GPT of 124M parameters (12 layers, 768 wide, context 1,024,
    vocabulary 50,257)``."""
    sizes = model["sizes"]
    return fill(
        _("a GPT of {params}M parameters ({layers} layers, {width} wide, context {context}, vocabulary {vocab})"),
        params=f"{model['trainable_params'] / 1e6:.0f}",
        layers=sizes["layers"],
        width=sizes["width"],
        context=f"{sizes['context']:,}",
        vocab=f"{sizes['vocab']:,}",
    )
