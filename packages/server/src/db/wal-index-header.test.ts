import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { WalIndexHeader } from './wal-index-header.js';

async function shmFile(bytes: Buffer): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'gateway-shm-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, 'gateway.db-shm');
  await writeFile(path, bytes);
  return path;
}

/** Two equal 48-byte copies of a header whose bytes all hold `fill`. */
function header(fill: number): Buffer {
  return Buffer.alloc(96, fill);
}

function opened(path: string): WalIndexHeader {
  const opened = WalIndexHeader.open(path);
  if (opened === undefined) throw new Error(`cannot open ${path}`);
  onTestFinished(() => opened.close());
  return opened;
}

describe('WalIndexHeader', () => {
  it('is unchanged only after a header was remembered and while it stays the same', async () => {
    const path = await shmFile(header(1));
    const wal = opened(path);
    expect(wal.unchanged()).toBe(false);
    wal.remember();
    expect(wal.unchanged()).toBe(true);
    await writeFile(path, header(2));
    expect(wal.unchanged()).toBe(false);
    // Not remembered: still compared with the first header.
    expect(wal.unchanged()).toBe(false);
    wal.remember();
    expect(wal.unchanged()).toBe(true);
  });

  it('never calls a header unchanged while its two copies disagree (a commit being published)', async () => {
    const torn = header(1);
    torn[60] = 9;
    const path = await shmFile(torn);
    const wal = opened(path);
    wal.unchanged();
    wal.remember();
    expect(wal.unchanged()).toBe(false);
  });

  it('never calls a short file unchanged', async () => {
    const path = await shmFile(Buffer.alloc(40));
    const wal = opened(path);
    wal.unchanged();
    wal.remember();
    expect(wal.unchanged()).toBe(false);
  });

  it('is not opened where there is no file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'gateway-shm-'));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    expect(WalIndexHeader.open(join(dir, 'missing-shm'))).toBeUndefined();
  });

  it('answers changed, not an error, once closed', async () => {
    const path = await shmFile(header(1));
    const wal = opened(path);
    wal.unchanged();
    wal.remember();
    wal.close();
    expect(wal.unchanged()).toBe(false);
  });
});
