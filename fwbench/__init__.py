"""Shared plumbing for fwbench's packages: versioned records and their JSON Schemas."""
