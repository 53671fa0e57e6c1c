"""Acceptance suites: the tools run as a user or CI runs them (corpora, kills, recipes, browsers, packaging,
generated sites, the walkthrough, the README loop, hooks, file modes, types, lint, layering, the public API)."""
