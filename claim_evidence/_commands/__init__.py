"""Whole-job commands over the packages below: ``prepublish``, ``init``, ``report``, ``review queue``, ``kb build``,
``answer eval`` and ``extract`` (check, run, score). Each takes its options as arguments and returns results or an exit code; none imports
click or prints (the CLI does).
"""
