"""One-off investigations whose figures a page of the site states, one folder per page they back:
``platform_issues/`` (Known platform issues, generator/data/platform_issues.json) and ``design/`` (the design page,
docs/design.md)."""
