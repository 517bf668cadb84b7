import { describe, expect, it } from 'vitest';
import { leakForms, MIN_SECRET_LENGTH, REDACTED, Redactor } from './redact.js';

describe('Redactor', () => {
  const secret = 's3cr3t-value-of-the-server';
  const redactor = new Redactor([secret, undefined, 'short']);

  // Issue 31: a relayed sampling request's maxTokens was recorded as [redacted].
  it('keeps counts of model tokens, and still hides a token field holding text', () => {
    expect(
      redactor.value({ maxTokens: 200, temperature: 0.3, token: 'abc', tokens: 'x y' }),
    ).toEqual({
      maxTokens: 200,
      temperature: 0.3,
      token: REDACTED,
      tokens: REDACTED,
    });
  });

  it('leaves text without secrets or tokens as it is', () => {
    const text = 'POST /mcp 200 in 1.25 ms for 0b7c2a4e-1f3d-4c5e-9a8b-7c6d5e4f3a2b';
    expect(redactor.text(text)).toBe(text);
    expect(redactor.text('short is too short to count as a secret')).toBe(
      'short is too short to count as a secret',
    );
  });

  it('scrubs configured secrets and every kind of token, wherever they are in the text', () => {
    const tokens = [
      secret,
      'gw_mcp_AbCdEfGh12345678',
      'gw_sa_AbCdEfGh12345678',
      'Bearer abc.def-ghi_jkl',
      'bearer abc.def-ghi_jkl',
      'Basic dXNlcjpwYXNzd29yZA==',
      'sk-0123456789abcdefXYZ',
      'ghp_0123456789abcdefghijKLMN',
      'ya29.a0AfH6SMBx-abc',
      'eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2QT4',
      'xoxb-2141029472-691202649728-abcdefGHIJKL',
      'xoxp-2141029472-691202649728-a1b2c3d4e5f6',
      'xoxa-2-abcdefghij0123',
      'xoxe.xoxp-1-Mi0yLTIxNDEwMjk0NzItNjkx',
      'xoxe-1-My0xLTIxNDEwMjk0NzItNjkxMjAy',
      'lin_oauth_0123456789abcdef0123456789abcdef',
      'lin_api_AbCdEf0123456789GhIjKl',
    ];
    for (const token of tokens) {
      expect(redactor.text(`before ${token} after`)).toBe(`before ${REDACTED} after`);
    }
    expect(redactor.text(`${secret}/${secret}`)).toBe(`${REDACTED}/${REDACTED}`);
  });

  it('masks the password of credentials in a URL and keeps the rest', () => {
    expect(redactor.text('connect postgres://gw:hunter2-pass@db.example:5432/gw failed')).toBe(
      `connect postgres://gw:${REDACTED}@db.example:5432/gw failed`,
    );
    expect(redactor.text('https://user:p%40ss@proxy.example.test/x')).toBe(
      `https://user:${REDACTED}@proxy.example.test/x`,
    );
    expect(redactor.text('redis://:only-a-password@cache.example:6379')).toBe(
      `redis://:${REDACTED}@cache.example:6379`,
    );
    // No password, nothing to hide.
    for (const plain of ['postgres://gw@db.example/gw', 'http://127.0.0.1:8787/api/x?at=1@2'])
      expect(redactor.text(plain)).toBe(plain);
  });

  it('leaves words that merely start like a token alone', () => {
    for (const plain of ['xoxo hugs', 'linear_api_docs', 'lin_oauth_short'])
      expect(redactor.text(plain)).toBe(plain);
  });

  it('scrubs a secret added later', () => {
    const later = new Redactor();
    later.addSecret('client-secret-from-env');
    expect(later.text('id=1 secret=client-secret-from-env')).toBe(`id=1 secret=${REDACTED}`);
  });

  it('drops the values of fields named like secrets and scrubs strings in nested values', () => {
    expect(
      redactor.value({
        msg: 'request',
        status: 200,
        accessToken: 'anything',
        nested: { list: [`Bearer ${secret}`, 'plain'], password: null },
      }),
    ).toEqual({
      msg: 'request',
      status: 200,
      accessToken: REDACTED,
      nested: { list: [`Bearer ${REDACTED}`, 'plain'], password: null },
    });
  });

  // Issue 37 review: a field's name is judged once per name (decidedOnce); the verdict is the
  // expression's for that exact name, whatever was judged before it.
  it('drops a secret-named field in any case, judged in one case first and another after', () => {
    const names = ['token', 'TOKEN', 'Token', 'tOkEn', 'x_API_KEY', 'Api-Key'];
    for (let round = 0; round < 2; round += 1) {
      for (const name of [...names].reverse()) {
        expect(redactor.value({ [name]: 'anything at all' }), name).toEqual({ [name]: REDACTED });
      }
    }
    // A name like a secret's but not one (look-alike letters, `key` inside another word) keeps its
    // value: a token in it is still scrubbed by its shape, a configured secret by its value.
    const token = `gw_mcp_${'a1'.repeat(20)}`;
    for (const name of ['t\u03bfken', '\u0455ecret', 'keyboard', 'k\u0435y']) {
      expect(redactor.value({ [name]: `${token} and ${secret}` }), name).toEqual({
        [name]: `${REDACTED} and ${REDACTED}`,
      });
      expect(redactor.value({ [name]: 'plain words' }), name).toEqual({ [name]: 'plain words' });
    }
  });

  it('hands back clean values as they are, and copies, never changes, values it scrubs', () => {
    const clean = { msg: 'request', status: 200, nested: { list: ['a', 1, null] } };
    expect(redactor.value(clean)).toBe(clean);

    const input = { route: '/mcp', list: ['plain', `Bearer ${secret}`], token: 'x' };
    const scrubbed = redactor.value(input);
    expect(scrubbed).toEqual({
      route: '/mcp',
      list: ['plain', `Bearer ${REDACTED}`],
      token: REDACTED,
    });
    expect(input).toEqual({ route: '/mcp', list: ['plain', `Bearer ${secret}`], token: 'x' });
  });

  it('logs other objects by their own fields only, never by their toJSON()', () => {
    const url = new URL('postgres://app:hunter2-long-password@db.example.test/gateway');
    expect(JSON.stringify(redactor.value({ url }))).toBe('{"url":{}}');
    class Holder {
      apiKey = 'sk-live-value';
      label = 'kept';
      toJSON() {
        return { apiKey: this.apiKey };
      }
    }
    expect(redactor.value(new Holder())).toEqual({ apiKey: REDACTED, label: 'kept' });
  });
});

describe('Redactor.child: the values vended to one tool call', () => {
  const server = new Redactor(['configured-server-secret']);
  const vended = 'k3y-V4lue+of/the=user?&';

  function callRedactor(): Redactor {
    const call = server.child();
    call.addVended(vended);
    return call;
  }

  it('masks the vended value, and the parent still masks only its own', () => {
    const call = callRedactor();
    expect(call.text(`key=${vended}; configured-server-secret`)).toBe(
      `key=${REDACTED}; ${REDACTED}`,
    );
    expect(server.text(`key ${vended}`)).toBe(`key ${vended}`);
  });

  it('masks the value base64-encoded, alone or inside longer base64 at any offset', () => {
    const call = callRedactor();
    for (const prefix of ['', 'u:', 'us:', 'user:']) {
      for (const suffix of ['', '!', '!!', '!!!']) {
        const text = `${prefix}${vended}${suffix}`;
        for (const encoding of ['base64', 'base64url'] as const) {
          const encoded = Buffer.from(text).toString(encoding);
          const masked = call.text(`Basic ${encoded}`.replace('Basic ', 'creds '));
          expect(masked).toContain(REDACTED);
          // What is left cannot be decoded back to the value.
          expect(Buffer.from(masked.slice(6), encoding).toString()).not.toContain(vended);
        }
      }
    }
  });

  it('masks the value URL-encoded and JSON-escaped', () => {
    const quoted = 'va"lue\\with-quotes';
    const call = server.child();
    call.addVended(vended);
    call.addVended(quoted);
    expect(call.text(`https://api.example.test/?key=${encodeURIComponent(vended)}&x=1`)).toBe(
      `https://api.example.test/?key=${REDACTED}&x=1`,
    );
    expect(call.text(JSON.stringify({ note: `it is ${quoted}` }))).toBe(
      `{"note":"it is ${REDACTED}"}`,
    );
  });

  it('masks inside nested values and object keys, at any depth, copying what it changes', () => {
    const call = callRedactor();
    let deep: unknown = { leaf: `x${vended}x` };
    for (let level = 0; level < 20; level += 1) deep = { level: [deep] };
    const input = { [vended]: 1, list: [{ note: `the key is ${vended}` }], deep };
    const masked = JSON.stringify(call.value(input));
    expect(masked).not.toContain(vended);
    expect(JSON.stringify(call.deepLiterals(input))).not.toContain(vended);
    expect(JSON.stringify(input)).toContain(vended);
  });

  it('masks only literal values in literals(), leaving token shapes and field names alone', () => {
    const call = callRedactor();
    const result = { nextPageToken: 'page-2-of-many', id: 'ghp_0123456789abcdefghijKLMN' };
    expect(call.deepLiterals(result)).toBe(result);
    expect(call.deepLiterals({ ...result, echo: vended })).toEqual({ ...result, echo: REDACTED });
    expect(call.literals('configured-server-secret')).toBe(REDACTED);
  });

  it(`ignores values shorter than ${MIN_SECRET_LENGTH} characters, in every form`, () => {
    const call = server.child();
    call.addVended('abc1234');
    expect(call.text('abc1234 YWJjMTIzNA==')).toBe('abc1234 YWJjMTIzNA==');
    expect(leakForms('abc12345').every((form) => form.length >= MIN_SECRET_LENGTH)).toBe(true);
  });

  it('masks in time linear in the text', () => {
    const call = callRedactor();
    const best = (size: number) => {
      const text = `${'a'.repeat(size)}${vended}`;
      // The process's CPU time, not the wall clock: on a busy machine the wall clock also
      // counts the time other processes ran.
      let fastest = Number.POSITIVE_INFINITY;
      for (let run = 0; run < 5; run += 1) {
        const start = process.cpuUsage();
        call.text(text);
        const used = process.cpuUsage(start);
        fastest = Math.min(fastest, (used.user + used.system) / 1000);
      }
      return fastest;
    };
    best(50_000);
    // 16 times the text: a quadratic scan would take 256 times as long; allow for a busy machine.
    expect(best(800_000)).toBeLessThan(best(50_000) * 80 + 5);
  });
});
