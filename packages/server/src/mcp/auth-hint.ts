import { AuthRequiredError } from '@gateway/sdk';
import { howToConnect } from '../vending/index.js';

/**
 * The message of a call that stopped on `AuthRequiredError`, telling the user how to connect
 * once. The token vendor's messages already say it (with the gateway's address) and pass as they
 * are; the sdk's default message, which can only say "the web app", gets the address; a plugin's
 * own message gets the instructions appended.
 *
 * @example
 * authRequiredMessage(new AuthRequiredError('github'), 'https://gw.example.com');
 * // 'No credential for "github". Connect it in the Tools tab of https://gw.example.com or run `gateway connect github`.'
 */
export function authRequiredMessage(error: AuthRequiredError, baseUrl: string): string {
  const { provider, message } = error;
  const how = howToConnect(baseUrl, provider);
  if (message === new AuthRequiredError(provider).message) {
    return `No credential for "${provider}". ${how}`;
  }
  if (message.includes(`gateway connect ${provider}`)) return message;
  return `${message.trimEnd()} ${how}`;
}
