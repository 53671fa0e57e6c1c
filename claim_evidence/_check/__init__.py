"""The page check and the files that carry a record: a page bound to its bundle (binding, markup,
stylesheet, facts), bundle and article files, the summary slot's findings, the check options, the record
cache, the site's extra checks, recording a review and what changed since one, ``claim add`` on a page.
May import :mod:`_core`, :mod:`_html`, :mod:`_record`, :mod:`_render`, :mod:`_snapshots` and :mod:`_answer`.
"""
