"""The workloads a run record or a harness check may name, by the names records carry."""

from __future__ import annotations

#: every workload's record name (``runners.workloads`` defines them)
WORKLOADS = ("resnet18", "gpt")
#: the article's workload, ResNet-18, and so that of a run record whose ``model`` names none (every one written
#: before the GPT); ``runners.workloads`` and the generator name it by this constant
ARTICLE_WORKLOAD = "resnet18"
