import { closeSync, openSync, readSync } from 'node:fs';

/**
 * The WAL index header: the first 96 bytes of a WAL database's `-shm` file, two copies of the
 * same 48-byte header (SQLite's file format, "The WAL-Index Format"). A writer that commits
 * rewrites it (the frame count, the checksums, after a restart of the WAL its salts), the second
 * copy first and then the first; a reader that finds the two copies different is looking at a
 * commit being published.
 */
const HEADER_BYTES = 96;
const COPY_BYTES = HEADER_BYTES / 2;
const COPY_WORDS = COPY_BYTES / 4;

/** `buffer`'s bytes as 32-bit words (a `Buffer.alloc` of its own starts word-aligned). */
function wordsOf(buffer: Buffer): Int32Array {
  return new Int32Array(buffer.buffer, buffer.byteOffset, buffer.length / 4);
}

/**
 * Tells, with one `pread(2)` of the WAL index header, that no connection has committed since the
 * header was last {@link remember}ed. SQLite decides the same way whether a reader's cache is
 * still good (it compares this header with the one it saw last), so an unchanged header means an
 * unchanged `PRAGMA data_version`, without the read transaction that pragma starts (locks on the
 * `-shm` file: two `fcntl(2)`s, ~10 µs in a busy gateway). Anything else (a header that differs,
 * copies that disagree, a short read, no `-shm` file) answers "may have changed", and the caller
 * asks SQLite: a wrong "changed" costs a read, a wrong "unchanged" is impossible as long as the
 * header is read before the pragma it is remembered with.
 *
 * @example
 * const header = WalIndexHeader.open(`${path}-shm`);
 * if (header?.unchanged() !== true) {
 *   version = dataVersion.get(); // after unchanged() read the header
 *   header?.remember();
 * }
 */
export class WalIndexHeader {
  readonly #fd: number;
  readonly #read = Buffer.alloc(HEADER_BYTES);
  readonly #seen = Buffer.alloc(HEADER_BYTES);
  /**
   * The two as 32-bit words, compared word by word: `Buffer#compare` over ranges and `equals`
   * checked their arguments and ranges on every request (~3 k instructions, issue 37).
   */
  readonly #readWords = wordsOf(this.#read);
  readonly #seenWords = wordsOf(this.#seen);
  /** Whether {@link #seen} holds a whole header (its two copies agreed). */
  #kept = false;
  /** Whether {@link #read} holds a whole header. */
  #whole = false;
  #closed = false;

  private constructor(fd: number) {
    this.#fd = fd;
  }

  /** Opens the `-shm` file at `path` for reading; `undefined` when it cannot be opened. */
  static open(path: string): WalIndexHeader | undefined {
    try {
      return new WalIndexHeader(openSync(path, 'r'));
    } catch {
      return undefined;
    }
  }

  /**
   * Reads the header now; true when it is whole and equals the one last remembered. Whatever it
   * answers, the header read is the one {@link remember} keeps.
   */
  unchanged(): boolean {
    let bytes = 0;
    try {
      // Once closed, the descriptor's number may already be another file's.
      if (!this.#closed) bytes = readSync(this.#fd, this.#read, 0, HEADER_BYTES, 0);
    } catch {
      bytes = 0;
    }
    const read = this.#readWords;
    let whole = bytes === HEADER_BYTES;
    for (let i = 0; whole && i < COPY_WORDS; i += 1) whole = read[i] === read[i + COPY_WORDS];
    this.#whole = whole;
    if (!whole || !this.#kept) return false;
    const seen = this.#seenWords;
    for (let i = 0; i < COPY_WORDS; i += 1) if (read[i] !== seen[i]) return false;
    return true;
  }

  /**
   * Keeps the header {@link unchanged} last read as the one the caller's fresh look at the
   * database goes with. Call it after that look, never with a header read after it.
   */
  remember(): void {
    this.#read.copy(this.#seen);
    this.#kept = this.#whole;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    closeSync(this.#fd);
  }
}
