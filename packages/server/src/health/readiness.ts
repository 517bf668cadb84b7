/**
 * One reason an instance may not serve: undefined when it may, else what an operator reads in
 * the `/readyz` answer (its error code and message).
 */
export type ReadinessCheck = () => Promise<NotReady | undefined> | NotReady | undefined;

/** Why an instance is not ready. */
export interface NotReady {
  code: 'database_unavailable' | 'service_unavailable';
  message: string;
}

/**
 * Whether this instance should get traffic (`GET /readyz`): every check in turn, the first
 * failing one answering. Checks are added by what can make an instance unready (its database;
 * a stop in progress).
 *
 * @example
 * const readiness = new Readiness();
 * readiness.add(async () => ((await health.probe()) ? undefined : { code: 'database_unavailable', message: '...' }));
 * const notReady = await readiness.check();
 */
export class Readiness {
  readonly #checks: ReadinessCheck[] = [];

  /** Adds a check; cheap ones (a flag) first, since the first failing one answers. */
  add(check: ReadinessCheck, options: { first?: boolean } = {}): void {
    if (options.first) this.#checks.unshift(check);
    else this.#checks.push(check);
  }

  /** Undefined when ready, else the first reason not to be. */
  async check(): Promise<NotReady | undefined> {
    for (const check of this.#checks) {
      const notReady = await check();
      if (notReady !== undefined) return notReady;
    }
    return undefined;
  }
}
