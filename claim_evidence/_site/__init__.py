"""A site: ``claim-evidence.toml`` (registered pages, options, policy), the runner that checks pages in
parallel, and the source map that places a finding in the Markdown or reST it was written in. May import
every package above it (:mod:`_core` … :mod:`_check`).
"""
