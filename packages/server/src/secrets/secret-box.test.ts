import { describe, expect, it } from 'vitest';
import { createSecretBox, SecretDecryptError } from './secret-box.js';

const AUTH_SECRET = 'test-auth-secret-0123456789abcdef';

function split(stored: string) {
  const [iv = '', sealed = ''] = stored.split(':');
  return { iv: Buffer.from(iv, 'base64'), sealed: Buffer.from(sealed, 'base64') };
}

function join(iv: Buffer, sealed: Buffer) {
  return `${iv.toString('base64')}:${sealed.toString('base64')}`;
}

function flipBit(buffer: Buffer, index: number) {
  const copy = Buffer.from(buffer);
  copy[index] = (copy[index] ?? 0) ^ 0x01;
  return copy;
}

describe('createSecretBox', () => {
  const box = createSecretBox(AUTH_SECRET);

  it.each([
    ['an API key', 'sk-live-abcdef0123456789'],
    ['the empty string', ''],
    ['unicode', 'pässwörd 🔑 秘密 \u0000 end'],
    ['a colon-laden value', 'a:b:c::'],
  ])('round-trips %s', (_, plain) => {
    expect(box.decrypt(box.encrypt(plain))).toBe(plain);
  });

  it('round-trips 1 MB', () => {
    const plain = 'x'.repeat(512 * 1024) + 'é'.repeat(256 * 1024);
    expect(box.decrypt(box.encrypt(plain))).toBe(plain);
  });

  it('stores base64(iv):base64(ciphertext + 16-byte tag) with a 12-byte IV', () => {
    const stored = box.encrypt('hello');
    expect(stored).toMatch(/^[A-Za-z0-9+/]+={0,2}:[A-Za-z0-9+/]+={0,2}$/);
    const { iv, sealed } = split(stored);
    expect(iv).toHaveLength(12);
    expect(sealed).toHaveLength(5 + 16);
    expect(stored).not.toContain('hello');
  });

  it('decrypts with a second box made from the same auth secret', () => {
    expect(createSecretBox(AUTH_SECRET).decrypt(box.encrypt('shared'))).toBe('shared');
  });

  // A fifth of them in `pnpm test:fast` (`GATEWAY_TEST_FAST`): enough for a clock, a counter
  // or a short random IV to repeat; `pnpm test` and CI encrypt all of them.
  const encryptions = process.env.GATEWAY_TEST_FAST === '1' ? 20_000 : 100_000;
  it(`never repeats an IV over ${encryptions.toLocaleString('en')} encryptions`, () => {
    const ivs = new Set<string>();
    for (let i = 0; i < encryptions; i++) {
      ivs.add(box.encrypt('same plaintext').split(':')[0] ?? '');
    }
    expect(ivs.size).toBe(encryptions);
  });

  it('detects a change to any byte of the IV, the ciphertext or the tag', () => {
    const { iv, sealed } = split(box.encrypt('tamper me'));
    for (let index = 0; index < iv.length; index++) {
      expect(() => box.decrypt(join(flipBit(iv, index), sealed))).toThrow(SecretDecryptError);
    }
    // The ciphertext's bytes come first, then the tag's 16.
    for (let index = 0; index < sealed.length; index++) {
      expect(() => box.decrypt(join(iv, flipBit(sealed, index)))).toThrow(SecretDecryptError);
    }
  });

  it('detects truncation, a dropped tag byte and swapped IVs', () => {
    const first = split(box.encrypt('first secret'));
    const second = split(box.encrypt('second secret'));
    expect(() => box.decrypt(join(first.iv, first.sealed.subarray(0, -1)))).toThrow(
      SecretDecryptError,
    );
    expect(() => box.decrypt(join(first.iv, first.sealed.subarray(1)))).toThrow(SecretDecryptError);
    expect(() => box.decrypt(join(first.iv, first.sealed.subarray(0, 15)))).toThrow(
      SecretDecryptError,
    );
    expect(() => box.decrypt(join(first.iv, Buffer.alloc(0)))).toThrow(SecretDecryptError);
    expect(() => box.decrypt(join(second.iv, first.sealed))).toThrow(SecretDecryptError);
  });

  it('rejects a value encrypted under another auth secret', () => {
    const foreign = createSecretBox('another-auth-secret').encrypt('not yours');
    expect(() => box.decrypt(foreign)).toThrow(SecretDecryptError);
  });

  it.each([
    ['empty', ''],
    ['no separator', 'abc'],
    ['three parts', 'a:b:c'],
    ['non-base64', '!!!!:????'],
    ['whitespace inside base64', 'AAAA AAAA AAAA AAAA:AAAA'],
    ['unpadded base64', 'AAAAAAAAAAAAAAAA:AAAAAAAAAAAAAAAAAAAAAAA'],
    ['short IV', `${Buffer.alloc(8).toString('base64')}:${Buffer.alloc(32).toString('base64')}`],
    ['long IV', `${Buffer.alloc(16).toString('base64')}:${Buffer.alloc(32).toString('base64')}`],
    [
      'ciphertext shorter than a tag',
      `${Buffer.alloc(12).toString('base64')}:${Buffer.alloc(8).toString('base64')}`,
    ],
    [
      'zeroed IV and ciphertext',
      `${Buffer.alloc(12).toString('base64')}:${Buffer.alloc(32).toString('base64')}`,
    ],
  ])('rejects a malformed value (%s) with SecretDecryptError', (_, stored) => {
    expect(() => box.decrypt(stored)).toThrow(SecretDecryptError);
  });

  it('rejects a non-string with SecretDecryptError', () => {
    expect(() => box.decrypt(42 as unknown as string)).toThrow(SecretDecryptError);
    expect(() => box.decrypt(null as unknown as string)).toThrow(SecretDecryptError);
  });

  it('says what went wrong without repeating the stored value or the secret', () => {
    const stored = box.encrypt('sk-very-secret');
    const { iv, sealed } = split(stored);
    const tampered = join(iv, flipBit(sealed, 0));
    try {
      box.decrypt(tampered);
      expect.unreachable('decrypt should have thrown');
    } catch (error) {
      expect(error).toBeInstanceOf(SecretDecryptError);
      const message = (error as Error).message;
      expect(message).toMatch(/altered or encrypted under another key/);
      expect(message).not.toContain(tampered.slice(0, 8));
      expect(message).not.toContain(AUTH_SECRET);
      expect(message).not.toContain('sk-very-secret');
    }
  });

  it('refuses an empty auth secret', () => {
    expect(() => createSecretBox('')).toThrow(/AUTH_SECRET/);
  });

  it('refuses to encrypt a non-string', () => {
    expect(() => box.encrypt(undefined as unknown as string)).toThrow(TypeError);
  });
});

// Issue 14 item 4: rotating AUTH_SECRET must not strand what was stored under the old one.
describe('createSecretBox with previous auth secrets', () => {
  const OLD = 'the-auth-secret-before-rotation-0123456789';
  const OLDER = 'a';
  const NEW = 'the-auth-secret-after-rotation-0123456789';

  it('opens values stored under the current key and under each previous one, saying which', () => {
    const rotated = createSecretBox(NEW, [OLD, OLDER]);
    const underNew = rotated.encrypt('new-key');
    const underOld = createSecretBox(OLD).encrypt('old-key');
    const underOlder = createSecretBox(OLDER).encrypt('older-key');

    expect(rotated.open(underNew)).toEqual({ plain: 'new-key', current: true });
    expect(rotated.open(underOld)).toEqual({ plain: 'old-key', current: false });
    expect(rotated.open(underOlder)).toEqual({ plain: 'older-key', current: false });
    expect(rotated.decrypt(underOld)).toBe('old-key');
  });

  it('always encrypts with the current key', () => {
    const rotated = createSecretBox(NEW, [OLD]);
    const stored = rotated.encrypt('fresh');
    expect(createSecretBox(NEW).decrypt(stored)).toBe('fresh');
    expect(() => createSecretBox(OLD).decrypt(stored)).toThrow(SecretDecryptError);
  });

  it('refuses a value no configured key opens, naming both settings and no secret', () => {
    const rotated = createSecretBox(NEW, [OLD]);
    const stranger = createSecretBox('a-key-nobody-configured-0123456789').encrypt('lost');
    expect(() => rotated.decrypt(stranger)).toThrow(
      /neither AUTH_SECRET nor one of GATEWAY_PREVIOUS_AUTH_SECRETS/,
    );
    try {
      rotated.open(stranger);
    } catch (error) {
      expect((error as Error).message).not.toContain(OLD);
      expect((error as Error).message).not.toContain(NEW);
    }
  });

  it('still detects tampering with a value stored under a previous key', () => {
    const { iv, sealed } = split(createSecretBox(OLD).encrypt('tamper me'));
    expect(() => createSecretBox(NEW, [OLD]).decrypt(join(iv, flipBit(sealed, 0)))).toThrow(
      SecretDecryptError,
    );
  });

  it('refuses an empty previous secret', () => {
    expect(() => createSecretBox(NEW, [''])).toThrow(/previous auth secret is empty/);
  });
});
