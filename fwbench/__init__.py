"""Shared plumbing for fwbench's packages (docs/design.md, "Layout"): the framework registry, versioned records
and their JSON Schemas, command-line conventions, and the helpers more than one package needs."""
