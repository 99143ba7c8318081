#!/usr/bin/env python3
"""The cost of `CAIRN_DURABILITY=full` on this disk: single-row commits to
a SQLite file in WAL mode with `synchronous=NORMAL` (Cairn's default) and
`FULL`, as Cairn's writer makes them. Usage: durability-cost.py [N] [DIR]
(DIR must be on the disk the store lives on; default: the current one)."""
import os
import sqlite3
import sys
import tempfile
import time

n = int(sys.argv[1]) if len(sys.argv) > 1 else 500
where = sys.argv[2] if len(sys.argv) > 2 else os.getcwd()
for level in ["NORMAL", "FULL"]:
    with tempfile.TemporaryDirectory(dir=where) as d:
        c = sqlite3.connect(os.path.join(d, "t.db"), isolation_level=None)
        c.execute("PRAGMA journal_mode=WAL")
        c.execute(f"PRAGMA synchronous={level}")
        c.execute("CREATE TABLE t (x TEXT)")
        t = time.perf_counter()
        for i in range(n):
            c.execute("BEGIN IMMEDIATE")
            c.execute("INSERT INTO t VALUES (?)", ("x" * 500,))
            c.execute("COMMIT")
        dt = time.perf_counter() - t
        c.close()
        print(f"synchronous={level}: {n} commits in {dt:.3f} s = {dt / n * 1e3:.3f} ms per commit")
