"""fwbench generator: turn the records under ``results/`` into the MkDocs Material site.

The generator reads records only (through ``fwbench.records``); it never imports a framework.
"""
