"""Debug probes: planted bugs run in each framework, their real error messages captured and scored."""
