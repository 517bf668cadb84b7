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
    this.#whole =
      bytes === HEADER_BYTES &&
      this.#read.compare(this.#read, 0, COPY_BYTES, COPY_BYTES, HEADER_BYTES) === 0;
    return this.#whole && this.#kept && this.#read.equals(this.#seen);
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
