import { type AuthProvider, AuthRequiredError } from '@gateway/sdk';
import { connectIdFor, howToConnect } from '../../vending/index.js';

/**
 * The message of a call that stopped on `AuthRequiredError`, telling the user how to connect
 * once, with the id `gateway connect` takes (the configured OAuth provider an entry of
 * `authProviders` names, not the plugin's own provider id). The token vendor's messages already
 * say it (with the gateway's address) and pass as they are; the sdk's default message, which can
 * only say "the web app", gets the address; a plugin's own message gets the instructions
 * appended, or its command corrected when it names the plugin's id.
 *
 * @example
 * authRequiredMessage(new AuthRequiredError('github'), 'https://gw.example.com');
 * // 'No credential for "github". Connect it in the Tools tab of https://gw.example.com or run `gateway connect github`.'
 */
export function authRequiredMessage(
  error: AuthRequiredError,
  baseUrl: string,
  authProviders: readonly AuthProvider[] = [],
): string {
  const { provider, message } = error;
  const connectId = connectIdFor(
    authProviders.find((entry) => entry.id === provider),
    provider,
  );
  const how = howToConnect(baseUrl, connectId);
  if (message === new AuthRequiredError(provider).message) {
    return `No credential for "${provider}". ${how}`;
  }
  if (message.includes('`gateway connect ')) {
    return message.replaceAll(
      `\`gateway connect ${provider}\``,
      `\`gateway connect ${connectId}\``,
    );
  }
  return `${message.trimEnd()} ${how}`;
}
