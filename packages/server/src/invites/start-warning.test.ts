import { describe, expect, it } from 'vitest';
import { signupPolicy } from './policy.js';
import { isLoopback, openSignupWarning } from './start-warning.js';

describe('openSignupWarning', () => {
  it('tells loopback addresses from the rest', () => {
    for (const host of [
      '127.0.0.1',
      '127.8.9.10',
      'localhost',
      'LOCALHOST',
      '::1',
      '[::1]',
      'app.localhost',
    ]) {
      expect(isLoopback(host), host).toBe(true);
    }
    for (const host of [
      '0.0.0.0',
      '::',
      '10.0.0.5',
      '192.168.1.2',
      'gateway.example.com',
      '128.0.0.1',
    ]) {
      expect(isLoopback(host), host).toBe(false);
    }
  });

  it('warns only for open sign-up beyond loopback with no admin emails', () => {
    const open = signupPolicy({});
    expect(openSignupWarning('0.0.0.0', open)).toMatch(/GATEWAY_ADMIN_EMAILS/);
    expect(openSignupWarning('127.0.0.1', open)).toBeUndefined();
    expect(openSignupWarning('0.0.0.0', signupPolicy({}, { mode: 'invite' }))).toBeUndefined();
    expect(openSignupWarning('0.0.0.0', signupPolicy({}, { mode: 'closed' }))).toBeUndefined();
    expect(
      openSignupWarning('0.0.0.0', signupPolicy({ GATEWAY_ADMIN_EMAILS: 'ops@example.com' })),
    ).toBeUndefined();
  });
});
