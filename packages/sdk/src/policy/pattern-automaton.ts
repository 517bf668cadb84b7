/**
 * The engine behind `compilePatterns()`. Patterns (already validated) become a trie of segments;
 * the trie is read as a nondeterministic automaton over the characters of a path, and that
 * automaton is determinised lazily: each deterministic state is a set of automaton positions,
 * each (state, character class) transition is computed once and kept in a flat table. A lookup
 * is then one table read per character of the path, however many patterns there are, and there
 * is nothing to backtrack.
 */

/** A node of the segment trie: where a path stands after a run of whole segments. */
interface SegmentNode {
  readonly id: number;
  readonly literals: Map<string, SegmentNode>;
  star: SegmentNode | undefined;
  globstar: SegmentNode | undefined;
  /** Reached through `**`, so it may also swallow any further segment. */
  readonly repeats: boolean;
  accepting: boolean;
}

/** A position of the character automaton. */
interface Position {
  readonly id: number;
  /** Moves on one specific character: the characters of literal segments. */
  readonly onChar: Map<number, Position>;
  /** Moves on any character but `.`: wildcard segments. */
  readonly onNonDot: Position[];
  onDot: Position | undefined;
  accepting: boolean;
  /**
   * Inside a `**` that ends a pattern: whatever follows, as long as no segment is empty, the path
   * matches, so the walk can stop here.
   */
  acceptsAnyRest: boolean;
}

const DOT = 0x2e;
/** Character class of `.`. */
const DOT_CLASS = 0;
/** Character class of every character that no literal segment contains. */
const OTHER_CLASS = 1;

/** Row of the empty state: no pattern can match any more. Its cells hold {@link DEAD_CELL}. */
const DEAD_ROW = 0;
/** A cell not computed yet. */
const UNKNOWN_CELL = 0;
/** A cell pointing at {@link DEAD_ROW}. */
const DEAD_CELL = DEAD_ROW + 1;
/** Accept-column values. */
const REJECTS = 0;
const ACCEPTS = 1;
const ACCEPTS_ANY_REST = 2;

/**
 * Upper bound on the memoised automaton, counted in table cells plus positions held by states.
 * Past it the cache is dropped and rebuilt on demand, so hostile patterns or paths cost time,
 * never unbounded memory (a cell is 4 bytes; the bound is a few megabytes).
 */
const MAX_CACHE_COST = 1 << 20;

/**
 * Decides whether a path matches any of a list of valid patterns (see `compilePatterns()`, which
 * validates them). Internal to the policy folder.
 *
 * @example
 * new PatternAutomaton(['github.**']).accepts('github.repos.list'); // true
 */
export class PatternAutomaton {
  private readonly startPosition: Position;
  /** Character code (below 128) to class; characters from 128 up are {@link OTHER_CLASS}. */
  private readonly classOf = new Uint8Array(128).fill(OTHER_CLASS);
  /** Class to the character it stands for (literal classes only). */
  private readonly charOfClass: number[] = [DOT, -1];
  /**
   * Cells per state: one per character class, then the accept column ({@link REJECTS},
   * {@link ACCEPTS} or {@link ACCEPTS_ANY_REST}). Rows are addressed by offset
   * (state * stride), which spares the hot loop a multiplication.
   */
  private readonly stride: number;
  private readonly seen: Uint32Array;
  private generation = 0;

  private stateIndex = new Map<string, number>();
  private stateSets: Position[][] = [];
  /**
   * `table[row + class]` is the next state's row + 1, negated when that state accepts any rest
   * (so the hot loop tests one condition for every special case), or {@link UNKNOWN_CELL}.
   */
  private table = new Int32Array(0);
  private startRow = 0;
  private cacheCost = 0;

  constructor(patterns: readonly string[]) {
    const { start, positionCount } = buildPositions(buildSegmentTrie(patterns));
    this.startPosition = start;
    this.seen = new Uint32Array(positionCount);
    this.classOf[DOT] = DOT_CLASS;
    forEachPosition(start, (position) => {
      for (const code of position.onChar.keys()) {
        if (this.classOf[code] !== OTHER_CLASS) continue;
        this.classOf[code] = this.charOfClass.length;
        this.charOfClass.push(code);
      }
    });
    this.stride = this.charOfClass.length + 1;
    this.reset();
  }

  accepts(path: string): boolean {
    if (typeof path !== 'string') return false;
    // Locals keep the hot loop free of property loads; only a new transition can swap the table.
    const classOf = this.classOf;
    let table = this.table;
    let row = this.startRow;
    for (let index = 0; index < path.length; index++) {
      const code = path.charCodeAt(index);
      const charClass = code < 128 ? classOf[code]! : OTHER_CLASS;
      let cell = table[row + charClass]!;
      if (cell <= DEAD_CELL) {
        if (cell === UNKNOWN_CELL) {
          cell = this.transition(row, charClass);
          table = this.table;
        }
        if (cell === DEAD_CELL) return false;
        if (cell < 0) return hasNoEmptySegment(path, index);
      }
      row = cell - 1;
    }
    return table[row + this.stride - 1] === ACCEPTS;
  }

  /** Computes, memoises and returns the cell for `charClass` in the state at `row`. */
  private transition(row: number, charClass: number): number {
    const from = this.stateSets[row / this.stride]!;
    let source = row;
    if (this.cacheCost > MAX_CACHE_COST) {
      this.reset();
      source = this.intern(from);
    }
    const next = this.intern(this.successors(from, charClass));
    const cell = this.table[next + this.stride - 1] === ACCEPTS_ANY_REST ? -(next + 1) : next + 1;
    this.table[source + charClass] = cell;
    return cell;
  }

  private successors(from: readonly Position[], charClass: number): Position[] {
    const generation = this.nextGeneration();
    const reached: Position[] = [];
    const reach = (position: Position | undefined) => {
      if (position === undefined || this.seen[position.id] === generation) return;
      this.seen[position.id] = generation;
      reached.push(position);
    };
    const char = this.charOfClass[charClass]!;
    for (const position of from) {
      if (charClass === DOT_CLASS) {
        reach(position.onDot);
        continue;
      }
      if (charClass !== OTHER_CLASS) reach(position.onChar.get(char));
      for (const next of position.onNonDot) reach(next);
    }
    return reached.sort((a, b) => a.id - b.id);
  }

  /** The row of the state made of `positions`, created if new. */
  private intern(positions: Position[]): number {
    const key = positions.map((position) => position.id).join(',');
    const known = this.stateIndex.get(key);
    if (known !== undefined) return known * this.stride;
    const state = this.stateSets.length;
    this.stateSets.push(positions);
    this.stateIndex.set(key, state);
    const row = state * this.stride;
    if (row + this.stride > this.table.length) {
      const grown = new Int32Array(Math.max(64, (state + 1) * 2) * this.stride);
      grown.set(this.table);
      this.table = grown;
    }
    this.table[row + this.stride - 1] = positions.some((position) => position.acceptsAnyRest)
      ? ACCEPTS_ANY_REST
      : positions.some((position) => position.accepting)
        ? ACCEPTS
        : REJECTS;
    this.cacheCost += this.stride + positions.length;
    return row;
  }

  /** Forgets every deterministic state, keeping only the dead and the start state. */
  private reset(): void {
    this.stateIndex = new Map();
    this.stateSets = [];
    this.table = new Int32Array(0);
    this.cacheCost = 0;
    this.intern([]);
    // The dead state loops on itself, so it never needs computing.
    this.table.fill(DEAD_CELL, DEAD_ROW, DEAD_ROW + this.stride - 1);
    this.startRow = this.intern([this.startPosition]);
  }

  private nextGeneration(): number {
    if (this.generation === 0xffff_ffff) {
      this.seen.fill(0);
      this.generation = 0;
    }
    return ++this.generation;
  }
}

function buildSegmentTrie(patterns: readonly string[]): SegmentNode {
  let nextId = 0;
  const node = (repeats: boolean): SegmentNode => ({
    id: nextId++,
    literals: new Map(),
    star: undefined,
    globstar: undefined,
    repeats,
    accepting: false,
  });
  const root = node(false);
  for (const pattern of patterns) {
    let current = root;
    for (const segment of pattern.split('.')) {
      if (segment === '**') current = current.globstar ??= node(true);
      else if (segment === '*') current = current.star ??= node(false);
      else {
        let next = current.literals.get(segment);
        if (next === undefined) {
          next = node(false);
          current.literals.set(segment, next);
        }
        current = next;
      }
    }
    current.accepting = true;
  }
  return root;
}

/**
 * Spells the segment trie out character by character. For each trie node there is a boundary
 * position (at the start of the next segment), from which the node's literal children branch
 * as a trie of characters, and a wildcard position (inside a `*` or `**` segment that lands on
 * the node). A segment is never empty: a `.` is only followed from a position that has read at
 * least one character of its segment.
 */
function buildPositions(root: SegmentNode): { start: Position; positionCount: number } {
  let positionCount = 0;
  const position = (): Position => ({
    id: positionCount++,
    onChar: new Map(),
    onNonDot: [],
    onDot: undefined,
    accepting: false,
    acceptsAnyRest: false,
  });
  const boundaries = new Map<SegmentNode, Position>();
  const wildcards = new Map<SegmentNode, Position>();
  const pending: SegmentNode[] = [];

  const boundaryOf = (node: SegmentNode): Position => {
    let boundary = boundaries.get(node);
    if (boundary === undefined) {
      boundary = position();
      boundaries.set(node, boundary);
      pending.push(node);
    }
    return boundary;
  };
  const wildcardOf = (node: SegmentNode): Position => {
    let wildcard = wildcards.get(node);
    if (wildcard === undefined) {
      wildcard = position();
      wildcard.onNonDot.push(wildcard);
      wildcard.onDot = boundaryOf(node);
      wildcard.accepting = node.accepting;
      wildcard.acceptsAnyRest = node.accepting && node.repeats;
      wildcards.set(node, wildcard);
    }
    return wildcard;
  };

  const start = boundaryOf(root);
  for (let node = pending.pop(); node !== undefined; node = pending.pop()) {
    const boundary = boundaryOf(node);
    for (const [segment, child] of node.literals) {
      let current = boundary;
      for (let index = 0; index < segment.length; index++) {
        const code = segment.charCodeAt(index);
        let next = current.onChar.get(code);
        if (next === undefined) {
          next = position();
          current.onChar.set(code, next);
        }
        current = next;
      }
      current.onDot = boundaryOf(child);
      current.accepting = child.accepting;
    }
    if (node.star) boundary.onNonDot.push(wildcardOf(node.star));
    if (node.globstar) boundary.onNonDot.push(wildcardOf(node.globstar));
    if (node.repeats) boundary.onNonDot.push(wildcardOf(node));
  }
  return { start, positionCount };
}

/**
 * Whether the path from `index` on (a character inside a segment) splits into non-empty
 * segments.
 */
function hasNoEmptySegment(path: string, index: number): boolean {
  return path.charCodeAt(path.length - 1) !== DOT && path.indexOf('..', index) === -1;
}

function forEachPosition(start: Position, visit: (position: Position) => void): void {
  const seen = new Set<Position>([start]);
  const pending = [start];
  for (let current = pending.pop(); current !== undefined; current = pending.pop()) {
    visit(current);
    const next = [...current.onChar.values(), ...current.onNonDot];
    if (current.onDot) next.push(current.onDot);
    for (const position of next) {
      if (seen.has(position)) continue;
      seen.add(position);
      pending.push(position);
    }
  }
}
