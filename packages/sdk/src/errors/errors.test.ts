import { describe, expect, it } from 'vitest';
import { ApprovalDeniedError } from './approval-denied-error.js';
import { AuthRequiredError } from './auth-required-error.js';
import { GatewayError } from './gateway-error.js';
import { PluginDefinitionError } from './plugin-definition-error.js';
import { ToolError } from './tool-error.js';
import { UndeclaredProviderError } from './undeclared-provider-error.js';

describe('sdk errors', () => {
  it('recognise their own kind only', () => {
    const tool = new ToolError('upstream failed');
    const auth = new AuthRequiredError('github');
    expect(ToolError.isInstance(tool)).toBe(true);
    expect(ToolError.isInstance(auth)).toBe(false);
    expect(AuthRequiredError.isInstance(auth)).toBe(true);
    expect(GatewayError.isInstance(tool) && GatewayError.isInstance(auth)).toBe(true);
    expect(GatewayError.isInstance(new Error('plain'))).toBe(false);
    expect(ToolError.isInstance(null)).toBe(false);
    expect(ToolError.isInstance('ToolError')).toBe(false);
  });

  it('are recognised across copies of the sdk, where instanceof fails', () => {
    // Another copy of the sdk makes objects with the same global symbols but other prototypes.
    const foreign = Object.assign(new Error('from another copy'), {
      [Symbol.for('gateway.error')]: true,
      [Symbol.for('gateway.error.ApprovalDeniedError')]: true,
    });
    expect(foreign instanceof ApprovalDeniedError).toBe(false);
    expect(ApprovalDeniedError.isInstance(foreign)).toBe(true);
    expect(PluginDefinitionError.isInstance(foreign)).toBe(false);
  });

  it('say how to connect when no credential is available', () => {
    const error = new AuthRequiredError('weather');
    expect(error.provider).toBe('weather');
    expect(error.message).toContain('Tools tab');
    expect(error.message).toContain('gateway connect weather');
  });

  it('name the plugin, the provider and the fix when a provider is not declared', () => {
    const error = new UndeclaredProviderError('weather', 'github');
    expect(UndeclaredProviderError.isInstance(error)).toBe(true);
    expect(AuthRequiredError.isInstance(error)).toBe(false);
    expect(error).toMatchObject({ plugin: 'weather', provider: 'github' });
    expect(error.message).toBe(
      'Plugin "weather" asked for a credential of "github", which it does not declare: add { id: "github", ... } to authProviders in definePlugin()',
    );
    // A value no plugin could declare (a token passed by mistake, say) is not echoed.
    const token = 'ghp_R3alLookingTokenValue0123456789';
    const mistaken = new UndeclaredProviderError('weather', token);
    expect(mistaken.message).not.toContain(token);
    expect(mistaken.message).toContain('provider id that is not valid');
  });

  it('say that nothing changed when approval is denied', () => {
    const error = new ApprovalDeniedError('notes.notes.delete', { executionId: 'e1' });
    expect(error.executionId).toBe('e1');
    expect(error.message).toBe('The user did not approve notes.notes.delete; nothing was changed.');
  });
});
