import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { startMcpGateway } from '#test/mcp/mcp-test-kit.js';
import { errorResponse, HttpError } from './errors.js';
import { bodyReadError, limitBody, readBodyText } from './request-body.js';

describe('bodyReadError', () => {
  it('makes a body the client stopped sending a 400', () => {
    const reset = Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    for (const error of [reset, new TypeError('terminated'), new Error('premature close')]) {
      const mapped = bodyReadError(error);
      expect(mapped).toBeInstanceOf(HttpError);
      expect(mapped).toMatchObject({ status: 400, code: 'bad_request' });
    }
  });

  it('keeps a body read twice (a server bug) and an HttpError as they are', () => {
    const twice = new TypeError('Body is unusable: Body has already been read');
    expect(bodyReadError(twice)).toBe(twice);
    const tooLarge = new HttpError('payload_too_large', 'too large');
    expect(bodyReadError(tooLarge)).toBe(tooLarge);
  });
});

/** A request whose body stream fails after its first bytes, as a hung-up client's does. */
function cutOffRequest(): Request {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"name":'));
      controller.error(Object.assign(new Error('aborted'), { code: 'ECONNRESET' }));
    },
  });
  return new Request('http://gw.test/x', { method: 'POST', body, duplex: 'half' });
}

function appWith(middleware: ReturnType<typeof limitBody> | undefined) {
  const app = new Hono();
  if (middleware) app.use('*', middleware);
  app.post('/x', async (c) => c.text(await readBodyText(c)));
  app.post('/bug', () => {
    throw Object.assign(new Error('upstream reset'), { code: 'ECONNRESET' });
  });
  app.onError((error, c) =>
    error instanceof HttpError ? errorResponse(c, error) : c.text('internal', 500),
  );
  return app;
}

describe('readBodyText and limitBody', () => {
  it('answer a body cut off mid-way with a 400 in the error shape', async () => {
    for (const app of [appWith(undefined), appWith(limitBody({ maxSize: 1024 }))]) {
      const res = await app.fetch(cutOffRequest());
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({
        error: { code: 'bad_request', message: 'The request body was cut off before its end' },
      });
    }
  });

  it('leave a handler’s own errors alone', async () => {
    const app = appWith(limitBody({ maxSize: 1024 }));
    const res = await app.fetch(new Request('http://gw.test/bug', { method: 'POST', body: 'x' }));
    expect(res.status).toBe(500);
  });
});

describe('a JSON body that is not UTF-8', () => {
  it('is refused with a 400 in the error shape, not read with U+FFFD in place of its bad bytes', async () => {
    const gw = await startMcpGateway();
    const admin = await gw.user({ admin: true });
    const post = (name: Buffer) =>
      fetch(`${gw.url}/api/policy/roles`, {
        method: 'POST',
        headers: { ...admin.headers, 'content-type': 'application/json' },
        body: Buffer.concat([
          Buffer.from('{"id":"utf8-check","name":"'),
          name,
          Buffer.from('","patterns":["demo.*"]}'),
        ]),
      });
    const bad = await post(Buffer.from([0x52, 0xff, 0x6f]));
    expect(bad.status).toBe(400);
    expect(await bad.json()).toEqual({
      error: { code: 'bad_request', message: 'The request body is not valid UTF-8' },
    });
    expect(await gw.gateway.services.policy.getRole('utf8-check')).toBeUndefined();
    expect((await post(Buffer.from('Rôle'))).status).toBe(201);
  });
});
