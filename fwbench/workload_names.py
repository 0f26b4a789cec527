"""The workloads a run record or a harness check may name, by the names records carry: every workload folder's
(``runners/workloads/<name>/``), read by ``fwbench.workload_entry.discover`` without importing a framework. The
article's workload is ``fwbench.workload_entry.ARTICLE_WORKLOAD``."""

from __future__ import annotations

from fwbench.workload_entry import Workload, discover

#: every workload's entry, by name, in display order
REGISTRY: dict[str, Workload] = discover()
#: every workload's record name, in display order (the article's first)
WORKLOADS: tuple[str, ...] = tuple(REGISTRY)
#: every workload's data sets, in order (a record's ``config.dataset``)
DATASETS: tuple[str, ...] = tuple(dict.fromkeys(d for entry in REGISTRY.values() for d in entry.datasets))
