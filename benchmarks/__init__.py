"""The maintainers' checks (README.md says what each answers and when to run it), importable as ``benchmarks.<name>``
for their tests; ``investigations/`` holds the scripts behind a page's statements, one folder per page."""
