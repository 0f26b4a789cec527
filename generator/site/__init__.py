"""The site's pages, one module each: ``PAGE`` (where it goes, its template, its place in the navigation) and
``context(site)``, the function that builds what the template shows. ``generator.page`` finds them here."""
