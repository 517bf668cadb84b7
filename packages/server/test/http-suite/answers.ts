import { expect } from 'vitest';
import { errorBodySchema, errorCodes } from '../../src/http/errors.js';
import { describeLeaks, findLeaks, knownSecrets } from '../support/known-secrets.js';

/** One answer as the suites keep it. */
export interface Answer {
  /** `METHOD /path?query`, for failure messages. */
  request: string;
  status: number;
  contentType: string;
  text: string;
}

/** Reads a response completely. */
export async function readAnswer(request: string, response: Response): Promise<Answer> {
  return {
    request,
    status: response.status,
    contentType: response.headers.get('content-type') ?? '',
    text: await response.text(),
  };
}

/**
 * Asserts a non-2xx answer is JSON in the error shape with the code of its status (none of them
 * may be a 5xx unless `allow5xx`).
 */
export function expectErrorShape(answer: Answer): void {
  const where = `${answer.request} -> ${answer.status} ${answer.text.slice(0, 300)}`;
  expect(answer.contentType, where).toMatch(/^application\/json/);
  let body: unknown;
  try {
    body = JSON.parse(answer.text);
  } catch {
    expect.fail(`not JSON: ${where}`);
  }
  const parsed = errorBodySchema.safeParse(body);
  if (!parsed.success) expect.fail(`not the error shape (${parsed.error.message}): ${where}`);
  expect(errorCodes[parsed.data.error.code], `code of ${where}`).toBe(answer.status);
}

/**
 * Asserts `answer` holds none of `secrets` (default: every secret known now). Take the list
 * before sending: a token an answer hands out is remembered as it arrives.
 */
export function expectNoSecrets(answer: Answer, secrets: readonly string[] = knownSecrets()): void {
  const leaks = findLeaks([answer.text], secrets);
  if (leaks.length > 0) {
    expect.fail(
      `${answer.request} -> ${answer.status} contains a secret:\n${describeLeaks(leaks)}`,
    );
  }
}

/** Asserts none of the logged lines or kept answers contains a known secret. */
export function expectNoLeaks(texts: Iterable<string>, what: string): void {
  const leaks = findLeaks(texts);
  if (leaks.length > 0) expect.fail(`${what} contain secrets:\n${describeLeaks(leaks)}`);
}
