import type { Tool as McpTool } from '@modelcontextprotocol/server';
import { isRecord } from '../../json/is-record.js';
import type { MountedTool } from '../../registry/index.js';
import type { ToolIndex } from '../tool-list.js';
import { terms } from './terms.js';

/** How much a term counts in each field of a tool (BM25F-style field weights). */
const WEIGHTS = { path: 3, title: 2, argument: 1.5, description: 1 } as const;
/** BM25's saturation and length normalisation. */
const K1 = 1.2;
const B = 0.75;
/** A query term also matches the longer terms it begins (`repo` finds `repository`), for less. */
const PREFIX_WEIGHT = 0.3;
const MIN_PREFIX_LENGTH = 3;
/** Query terms whose longer terms are kept (see `#longer`); past it, they start over. */
const MAX_EXPANSIONS = 1000;
/** The one line of a description a search answers. */
const SUMMARY_LENGTH = 200;

/** One tool as a search answers it: short, enough to choose, no schema. */
export interface ToolSummary {
  readonly name: string;
  readonly title: string;
  readonly description: string;
  /** Whether calling it asks the user to approve first (a destructive tool). */
  readonly asksApproval: boolean;
}

/** A search's answer: the best matches, and how many tools matched in all. */
export interface SearchAnswer {
  tools: ToolSummary[];
  total: number;
}

/**
 * The tools holding one term, and what the term adds to each one's score, all computed when the
 * index is built: a search multiplies and adds, nothing more.
 */
interface Posting {
  /** Tool numbers. */
  readonly docs: Int32Array;
  /**
   * The term's BM25 score in each tool: its inverse document frequency times its weight there,
   * saturated and normalised by the tool's length.
   */
  readonly scores: Float64Array;
}

/**
 * A lexical search over the tools of one {@link ToolIndex} (a role narrowed by an endpoint), and
 * nothing else: its statistics and answers never involve a tool outside it. Ranking is BM25 over
 * the fields of each tool (path segments, title, argument names, description; see {@link terms}
 * for how text becomes terms), ties broken by name, so the same query always gives the same
 * answer. Built once per index ({@link searchIndexOf}), scores included; a search adds up the
 * precomputed scores of its terms' postings.
 *
 * @example
 * searchIndexOf(index).search('create note', 10).tools[0]?.name; // 'notes.notes.create'
 */
export class SearchIndex {
  /** Tools in index order; a tool's number is its position here. */
  readonly #summaries: ToolSummary[] = [];
  readonly #entries: McpTool[] = [];
  readonly #byName = new Map<string, number>();
  /** Each tool's position in name order. */
  readonly #rank: Int32Array;
  /** Tool numbers in name order. */
  readonly #alphabetical: number[];
  readonly #postings = new Map<string, Posting>();
  /** Every term, sorted, for prefix matches. */
  readonly #vocabulary: string[];
  /** The postings of the longer terms each recent query term begins, found once. */
  #expansions = new Map<string, readonly Posting[]>();
  readonly #scores: Float64Array;
  readonly #touched: number[] = [];

  constructor(index: ToolIndex) {
    let totalLength = 0;
    const lengths: number[] = [];
    const building = new Map<string, { docs: number[]; weights: number[] }>();
    for (const entry of index.list) {
      const tool = index.byName.get(entry.name);
      if (tool === undefined) continue;
      const doc = this.#entries.length;
      this.#entries.push(entry);
      this.#byName.set(entry.name, doc);
      this.#summaries.push(summaryOf(entry, tool));
      const weights = new Map<string, number>();
      let length = 0;
      const add = (text: string, weight: number) => {
        for (const term of terms(text)) {
          weights.set(term, (weights.get(term) ?? 0) + weight);
          length += weight;
        }
      };
      add(tool.path, WEIGHTS.path);
      add(tool.name, WEIGHTS.title);
      for (const name of argumentNames(tool)) add(name, WEIGHTS.argument);
      add(tool.description, WEIGHTS.description);
      lengths.push(length);
      totalLength += length;
      for (const [term, weight] of weights) {
        let posting = building.get(term);
        if (posting === undefined) {
          posting = { docs: [], weights: [] };
          building.set(term, posting);
        }
        posting.docs.push(doc);
        posting.weights.push(weight);
      }
    }
    const count = this.#entries.length;
    const averageLength = count === 0 ? 1 : totalLength / count;
    const norms = lengths.map((length) => K1 * (1 - B + (B * length) / averageLength));
    for (const [term, { docs, weights }] of building) {
      const frequency = docs.length;
      const idf = Math.log(1 + (count - frequency + 0.5) / (frequency + 0.5));
      const scores = new Float64Array(frequency);
      for (let i = 0; i < frequency; i++) {
        const weight = weights[i] as number;
        scores[i] = idf * ((weight * (K1 + 1)) / (weight + (norms[docs[i] as number] as number)));
      }
      this.#postings.set(term, { docs: Int32Array.from(docs), scores });
    }
    this.#vocabulary = [...this.#postings.keys()].sort();
    this.#alphabetical = [...this.#entries.keys()].sort((a, b) =>
      compareNames(this.#entries[a]?.name ?? '', this.#entries[b]?.name ?? ''),
    );
    this.#rank = new Int32Array(count);
    this.#alphabetical.forEach((doc, position) => {
      this.#rank[doc] = position;
    });
    this.#scores = new Float64Array(count);
  }

  /** How many tools the index holds. */
  get size(): number {
    return this.#entries.length;
  }

  /** The `tools/list` entry of the tool named `name`, if the index holds it. */
  entry(name: string): McpTool | undefined {
    const doc = this.#byName.get(name);
    return doc === undefined ? undefined : this.#entries[doc];
  }

  /**
   * The `limit` tools that best match `query`, and how many match at all. A blank query lists the
   * first `limit` tools by name, with the number of tools in the index.
   */
  search(query: string, limit: number): SearchAnswer {
    if (query.trim() === '') {
      return {
        tools: this.#alphabetical.slice(0, limit).map((doc) => this.#summary(doc)),
        total: this.size,
      };
    }
    const wanted = [...new Set(terms(query))];
    const scores = this.#scores;
    const touched = this.#touched;
    try {
      for (const term of wanted) {
        const posting = this.#postings.get(term);
        if (posting !== undefined) this.#score(posting, 1);
        for (const longer of this.#longer(term)) this.#score(longer, PREFIX_WEIGHT);
      }
      return { tools: this.#best(limit).map((doc) => this.#summary(doc)), total: touched.length };
    } finally {
      for (const doc of touched) scores[doc] = 0;
      touched.length = 0;
    }
  }

  #summary(doc: number): ToolSummary {
    const summary = this.#summaries[doc];
    if (summary === undefined) throw new Error(`no tool ${doc} in the search index`);
    return summary;
  }

  /** Adds the scores of `posting` (times `factor`) to those of the tools it holds. */
  #score(posting: Posting, factor: number): void {
    const { docs, scores: termScores } = posting;
    const scores = this.#scores;
    const touched = this.#touched;
    for (let i = 0; i < docs.length; i++) {
      const doc = docs[i] as number;
      if (scores[doc] === 0) touched.push(doc);
      scores[doc] = (scores[doc] as number) + factor * (termScores[i] as number);
    }
  }

  /**
   * The postings of the terms that begin with `prefix` and are longer (none for a prefix shorter
   * than {@link MIN_PREFIX_LENGTH}), found in the sorted vocabulary once per recent query term.
   */
  #longer(prefix: string): readonly Posting[] {
    if (prefix.length < MIN_PREFIX_LENGTH) return [];
    let found = this.#expansions.get(prefix);
    if (found !== undefined) return found;
    const vocabulary = this.#vocabulary;
    let low = 0;
    let high = vocabulary.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((vocabulary[middle] as string) <= prefix) low = middle + 1;
      else high = middle;
    }
    const postings: Posting[] = [];
    for (let i = low; i < vocabulary.length; i++) {
      const term = vocabulary[i] as string;
      if (!term.startsWith(prefix)) break;
      const posting = this.#postings.get(term);
      if (posting !== undefined) postings.push(posting);
    }
    found = Object.freeze(postings);
    if (this.#expansions.size >= MAX_EXPANSIONS) this.#expansions = new Map();
    this.#expansions.set(prefix, found);
    return found;
  }

  /** The touched tools with the `limit` best scores, best first, ties by name. */
  #best(limit: number): number[] {
    const scores = this.#scores;
    const rank = this.#rank;
    const better = (a: number, b: number) =>
      (scores[a] as number) > (scores[b] as number) ||
      (scores[a] === scores[b] && (rank[a] as number) < (rank[b] as number));
    const best: number[] = [];
    for (const doc of this.#touched) {
      if (best.length === limit && !better(doc, best[best.length - 1] as number)) continue;
      let at = best.length;
      while (at > 0 && better(doc, best[at - 1] as number)) at -= 1;
      best.splice(at, 0, doc);
      if (best.length > limit) best.pop();
    }
    return best;
  }
}

const indexes = new WeakMap<ToolIndex, SearchIndex>();

/** The search index of `index`, built on first use and kept as long as the index is. */
export function searchIndexOf(index: ToolIndex): SearchIndex {
  let search = indexes.get(index);
  if (search === undefined) {
    search = new SearchIndex(index);
    indexes.set(index, search);
  }
  return search;
}

function summaryOf(entry: McpTool, tool: MountedTool): ToolSummary {
  return Object.freeze({
    name: entry.name,
    title: tool.name,
    description: oneLine(tool.description),
    asksApproval: tool.destructive,
  });
}

/** The first line of `text`, its spaces collapsed, at most {@link SUMMARY_LENGTH} characters. */
function oneLine(text: string): string {
  const line = (text.split(/\r?\n/).find((part) => part.trim() !== '') ?? '')
    .replace(/\s+/g, ' ')
    .trim();
  return line.length <= SUMMARY_LENGTH ? line : `${line.slice(0, SUMMARY_LENGTH - 1)}…`;
}

function argumentNames(tool: MountedTool): string[] {
  const properties = tool.inputJsonSchema.properties;
  return isRecord(properties) ? Object.keys(properties) : [];
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
