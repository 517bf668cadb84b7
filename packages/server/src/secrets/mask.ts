/** The character a masked secret is made of. */
export const MASK_CHAR = '•';

/**
 * How many mask characters stand for the hidden part. Fixed, so the masked form does not give
 * away the secret's length.
 */
export const MASK_RUN = 8;

/** Characters revealed at the end of a long enough secret, so a user can tell keys apart. */
export const REVEALED_CHARS = 4;

/**
 * The shortest secret whose last four characters are shown, as the spec and issue #3 state: a
 * secret of four characters or fewer is masked entirely, since its "last four" would be all of it.
 */
export const MIN_REVEAL_LENGTH = 5;

/**
 * The display form of a secret: eight `•` followed by its last four characters, e.g.
 * `sk-live-abcdef123456` -> `••••••••3456`. A secret of four characters or fewer, the empty one
 * included, is shown as eight `•` and nothing else.
 *
 * Characters are Unicode code points, so an emoji or other astral character is never cut in
 * half.
 *
 * @example
 * maskSecret('sk-live-abcdef123456'); // '••••••••3456'
 * maskSecret('pin1'); // '••••••••'
 */
export function maskSecret(secret: string): string {
  const chars = Array.from(secret);
  const run = MASK_CHAR.repeat(MASK_RUN);
  if (chars.length < MIN_REVEAL_LENGTH) return run;
  return run + chars.slice(-REVEALED_CHARS).join('');
}
