"""The probe programs: one module per framework, the same four planted bugs in each, side by side."""
