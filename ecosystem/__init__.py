"""Ecosystem statistics: Stack Overflow, GitHub and PyPI figures collected into dated snapshots.

`ecosystem collect` writes ``results/ecosystem/<UTC date>.json`` (schema ``fwbench.ecosystem/1``);
`ecosystem show` prints the latest snapshot and its change since the previous one.
"""
