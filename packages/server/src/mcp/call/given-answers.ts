/**
 * The answers a 2026-07-28 call was given in its rounds (the user's, or the client's model's),
 * each reused only for what it answered. The handler runs again from the start every round and
 * asks again; an answer carries the digest of its question (`digestInput`), and a question takes
 * the first answer to that same question this run has not used yet. So an upstream that asks
 * something else in a place never gets the answer meant for another question, and one that asks
 * its questions in another order (an upstream whose answer depends on its own state) still finds
 * each answer. Answers from states issued before the digest carry none and are taken in order.
 */
export class GivenAnswers<T extends { question?: string | undefined }> {
  readonly #all: T[];
  readonly #used = new Set<number>();
  #last: T | undefined;

  constructor(given: readonly T[]) {
    this.#all = [...given];
  }

  /** Every answer so far, to carry into the next round. */
  get all(): readonly T[] {
    return this.#all;
  }

  /** The answer this run used or was given last, for the execution record. */
  get last(): T | undefined {
    return this.#last;
  }

  /** An answer to the question of `digest` from an earlier round, now used; else undefined. */
  take(digest: string): { at: number; answer: T } | undefined {
    const at = this.#all.findIndex(
      (answer, index) => !this.#used.has(index) && (answer.question ?? digest) === digest,
    );
    const answer = this.#all[at];
    if (answer === undefined) return undefined;
    this.#used.add(at);
    this.#last = answer;
    return { at, answer };
  }

  /** Keeps a new answer (given in this run), used; its place. */
  add(answer: T): number {
    const at = this.#all.push(answer) - 1;
    this.#used.add(at);
    this.#last = answer;
    return at;
  }

  /** Puts `answer` in place of the one at `at` (a form's data checked against the form). */
  replace(at: number, answer: T): void {
    if (this.#last === this.#all[at]) this.#last = answer;
    this.#all[at] = answer;
  }
}
