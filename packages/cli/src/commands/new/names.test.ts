import { describe, expect, it } from 'vitest';
import { packageNameProblem, toPluginId, toTitle, unscopedName } from './names.js';

describe('packageNameProblem', () => {
  it.each(['weather', '@acme/weather', 'my-tools.v2', 'a', 'x~y'])('accepts %s', (name) => {
    expect(packageNameProblem(name)).toBeUndefined();
  });

  it.each([
    ['', 'it is empty'],
    ['Weather', 'it must be lowercase'],
    ['.hidden', 'it must not start with . or _'],
    ['_private', 'it must not start with . or _'],
    ['my tools', 'use lowercase letters, digits, -, . and _, optionally after a scope like @acme/'],
    ['@acme', 'use lowercase letters, digits, -, . and _, optionally after a scope like @acme/'],
    ['a/b', 'use lowercase letters, digits, -, . and _, optionally after a scope like @acme/'],
    ['node_modules', 'that name is reserved'],
    ['x'.repeat(215), 'it is longer than 214 characters'],
  ])('rejects %j: %s', (name, problem) => {
    expect(packageNameProblem(name)).toBe(problem);
  });
});

describe('toPluginId', () => {
  it.each([
    ['weather', 'weather'],
    ['@acme/weather', 'weather'],
    ['gateway-plugin-weather', 'weather'],
    ['gateway-weather', 'weather'],
    ['weather-plugin', 'weather'],
    ['gateway-plugin', 'plugin'],
    ['gateway', 'gateway'],
    ['my-notes.app', 'my_notes_app'],
    ['a--b__c', 'a_b_c'],
    ['2fa-tools', 'plugin_2fa_tools'],
    ['~', 'plugin'],
  ])('%s -> %s', (name, id) => {
    expect(toPluginId(name)).toBe(id);
  });

  it('always yields a valid plugin id and tool path segment', () => {
    for (const name of ['@x/---', 'ab-~-cd', 'gateway-plugin-9', '-.-']) {
      expect(toPluginId(name)).toMatch(/^[a-z][a-z0-9_]*$/);
    }
  });
});

describe('toTitle and unscopedName', () => {
  it('titles an id and strips a scope', () => {
    expect(toTitle('my_notes_app')).toBe('My Notes App');
    expect(unscopedName('@acme/weather')).toBe('weather');
    expect(unscopedName('weather')).toBe('weather');
  });
});
