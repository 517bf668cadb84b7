// test tier: unit
// (It names PostgreSQL URLs; it opens no connection.)
import { describe, expect, it } from 'vitest';
import { databaseUnreachableMessage } from './unreachable-message.js';

const refused = Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:6543'), {
  code: 'ECONNREFUSED',
});

describe('databaseUnreachableMessage', () => {
  it('names the host and port it tried, why, and what to check', () => {
    expect(databaseUnreachableMessage(refused, 'postgres://gw:pw@10.0.0.5:6543/gateway')).toBe(
      'cannot reach PostgreSQL at 10.0.0.5:6543 (DATABASE_URL): the connection was refused. Check that PostgreSQL is running and accepts TCP connections there (its listen_addresses and port, a firewall in between), and that DATABASE_URL names that host and port',
    );
  });

  it('takes the default port, and an error wrapped in another', () => {
    const wrapped = new Error('could not open the database', {
      cause: Object.assign(new Error('getaddrinfo ENOTFOUND db.internal'), { code: 'ENOTFOUND' }),
    });
    expect(databaseUnreachableMessage(wrapped, 'postgresql://db.internal/gateway')).toMatch(
      /^cannot reach PostgreSQL at db\.internal:5432 \(DATABASE_URL\): no host has that name\. /,
    );
  });

  it('never shows the user, password or query of DATABASE_URL', () => {
    const url = 'postgres://admin:s3cr%40t-pass@127.0.0.1:1/gateway?sslmode=require&password=x2';
    const message = databaseUnreachableMessage(refused, url) ?? '';
    expect(message).toContain('127.0.0.1:1');
    for (const secret of ['admin', 's3cr', 'pass', 'sslmode', 'x2']) {
      expect(message).not.toContain(secret);
    }
  });

  it('says nothing of other errors, of SQLite, and of a URL it cannot read', () => {
    const denied = Object.assign(new Error('password authentication failed'), { code: '28P01' });
    expect(databaseUnreachableMessage(denied, 'postgres://127.0.0.1/gateway')).toBeUndefined();
    expect(databaseUnreachableMessage(refused, './gateway.db')).toBeUndefined();
    expect(databaseUnreachableMessage(refused, undefined)).toBeUndefined();
    expect(databaseUnreachableMessage(refused, 'postgres://[bad')).toBeUndefined();
    expect(databaseUnreachableMessage('ECONNREFUSED', 'postgres://h/db')).toBeUndefined();
    expect(databaseUnreachableMessage(null, 'postgres://h/db')).toBeUndefined();
  });
});
