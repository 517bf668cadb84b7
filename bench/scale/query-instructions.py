#!/usr/bin/env python3
"""Instructions per PostgreSQL query of query-instructions.ts, its start and warm-up left out.

Usage (from the repository root, TEST_DATABASE_URL set):
  python3 bench/scale/query-instructions.py PATH [COUNT] [RUNS]
PATH is prepared, batched, kysely or pool (see query-instructions.ts); COUNT queries are counted (2,000),
RUNS times (3). Prints each run's instructions a query: every thread, and the main thread alone.
"""
import glob
import os
import shutil
import subprocess
import sys
import tempfile

path = sys.argv[1]
count = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
runs = int(sys.argv[3]) if len(sys.argv) > 3 else 3

for _ in range(runs):
    out = tempfile.mkdtemp(prefix='query-instructions-')
    child = subprocess.Popen(
        ['valgrind', '--tool=callgrind', '--instr-atstart=no', '--smc-check=all-non-file',
         '--separate-threads=yes', f'--callgrind-out-file={out}/cg.%p',
         'node', '--import', 'tsx', 'bench/scale/query-instructions.ts', path, str(count)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        env={**os.environ, 'QUERY_HANDSHAKE': '1'})
    control = lambda *args: subprocess.run(
        ['callgrind_control', *args, str(child.pid)], check=True, stdout=subprocess.DEVNULL)
    assert child.stdout.readline().strip() == 'warm'
    control('-i', 'on')
    child.stdin.write('go\n')
    child.stdin.flush()
    assert child.stdout.readline().strip() == 'done'
    control('-d')
    child.stdin.write('end\n')
    child.stdin.flush()
    child.wait()
    # The dump of `-d` is cg.<pid>.1-<thread>; thread 01 is the main one.
    threads = {}
    for name in glob.glob(f'{out}/cg.*.1-*'):
        with open(name) as f:
            threads[name[-2:]] = next(int(l.split()[1]) for l in f if l.startswith('totals:'))
    shutil.rmtree(out)
    every = sum(threads.values())
    print(f'{path}: {every / count:,.0f} instructions a query, main thread '
          f'{threads.get("01", 0) / count:,.0f}', flush=True)
