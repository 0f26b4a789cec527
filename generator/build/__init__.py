"""Build layer: the MkDocs glue — rendering the pages, the mkdocs-gen-files script, one mkdocs build per language.

``render`` renders every page, ``gen_pages`` is the mkdocs-gen-files script, ``mkdocs_site`` runs ``mkdocs build``
once per language, and ``handoff`` is the one explicit object that hands the loaded records to the script.

May import every other layer.
"""
