/** Why an upstream's HTTP answer was not used. */
export class UpstreamHttpError extends Error {
  readonly kind: 'redirect' | 'too_large' | 'timeout';

  constructor(kind: 'redirect' | 'too_large' | 'timeout', message: string) {
    super(message);
    this.name = 'UpstreamHttpError';
    this.kind = kind;
  }
}
