import type { JSONRPCMessage, Transport } from '@modelcontextprotocol/server';

/** Where a routed transport sends what belongs to another instance. */
export interface AnswerRouting {
  /** This instance's name on the session bus. */
  instance: string;
  /** An answer to a request instance `to` sent. */
  forward: (to: string, message: JSONRPCMessage) => void;
  /** A client notification the other holders of the session must hear too. */
  share: (message: JSONRPCMessage) => void;
}

/**
 * Makes a session transport work across instances. The requests its server sends the client
 * (`elicitation/create`, `sampling/createMessage`) get ids naming this instance
 * (`<instance>:<n>`), so the client's answer, which may reach any instance, can be routed back:
 * an answer naming another instance goes to `forward`, one naming this instance reaches the
 * server with its own id again. `notifications/cancelled` is shared with the other holders (the
 * call it cancels may run on any of them).
 *
 * Call after `server.connect(transport)`, which sets the handler this wraps.
 *
 * @returns a function that delivers a message another instance forwarded here.
 */
export function routeAnswers(
  transport: Pick<Transport, 'send' | 'onmessage'>,
  routing: AnswerRouting,
): (message: JSONRPCMessage) => void {
  const prefix = `${routing.instance}:`;
  const send = transport.send.bind(transport);
  transport.send = (message, options) => send(outgoing(message, prefix), options);
  const deliver = transport.onmessage;
  const local = (
    message: JSONRPCMessage,
    extra?: Parameters<NonNullable<Transport['onmessage']>>[1],
  ) => deliver?.call(transport, message, extra);
  transport.onmessage = (message, extra) => {
    if (isAnswer(message)) {
      const id = message.id;
      if (typeof id === 'string') {
        const colon = id.indexOf(':');
        const to = colon > 0 ? id.slice(0, colon) : undefined;
        if (to !== undefined && to !== routing.instance) {
          routing.forward(to, message);
          return;
        }
      }
      local(incoming(message, prefix), extra);
      return;
    }
    if ('method' in message && message.method === 'notifications/cancelled') routing.share(message);
    local(message, extra);
  };
  return (message) => {
    if (isAnswer(message)) local(incoming(message, prefix));
    else local(message);
  };
}

function isAnswer(message: JSONRPCMessage): message is JSONRPCMessage & { id: string | number } {
  return !('method' in message) && 'id' in message;
}

/** `message` with the id of a request this server sends, or cancels, naming this instance. */
function outgoing(message: JSONRPCMessage, prefix: string): JSONRPCMessage {
  if (!('method' in message)) return message;
  if ('id' in message && typeof message.id === 'number') {
    return { ...message, id: `${prefix}${message.id}` };
  }
  if (message.method === 'notifications/cancelled') {
    const requestId = message.params?.requestId;
    // A server cancels only requests of its own, which it counts in numbers.
    if (typeof requestId === 'number') {
      return { ...message, params: { ...message.params, requestId: `${prefix}${requestId}` } };
    }
  }
  return message;
}

/** `message` answering `<prefix><n>`, with the id `n` the server's request had. */
function incoming(message: JSONRPCMessage & { id: string | number }, prefix: string) {
  const { id } = message;
  if (typeof id !== 'string' || !id.startsWith(prefix)) return message;
  const number = Number(id.slice(prefix.length));
  return Number.isSafeInteger(number) ? { ...message, id: number } : message;
}
