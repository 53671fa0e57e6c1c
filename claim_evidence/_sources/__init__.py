"""The network and text extraction: fetching source URLs under one deadline and a decoded-size cap,
undoing content codings, extracting text from HTML and PDF, and the ``sources`` commands. The only user of
httpx, lxml, beautifulsoup4, charset-normalizer and pypdf. May import :mod:`_core`, :mod:`_record`
and :mod:`_snapshots`.
"""
