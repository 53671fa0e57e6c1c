"""The ground floor: findings and the one error hierarchy, results and reporters, JSON and text IO,
positions in text, atomic writes, the caches' stores, memo keys, the URL gate, lazy exports, the loopback
server. Standard library only: every other package builds on this one, so it imports none of them.
"""
