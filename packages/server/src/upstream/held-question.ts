/** The longest a stdio upstream's question waits to be told whose it is ({@link heldQuestionOwner}). */
export const QUESTION_HOLD_MS = 2_000;

/**
 * Whose a question (or sampling request) is that a stdio process asked while it served one call,
 * `call`, and requests of the gateway's own (a tool list fetch, a user's resource read, each
 * `others`: true once answered, false when it failed). A stdio process has one stream, and its
 * requests carry nothing that says which of the process's requests they are about, so the
 * question may be the call's or one of those requests'. Held until it can be told: a request
 * whose handler waits for the question's answer cannot be answered before it; once every one of
 * `others` has been answered without it, the question can only be the call's, which still runs
 * (`running`). Requests sent after the question came cannot have set it off. Nobody's (refused)
 * when one of them failed (perhaps waiting for it), when the call ended first, or after `holdMs`
 * (a fetch that asks and waits then gets its refusal in time to answer). An upstream gains no one
 * this way: the call's user is the one it could ask during the call anyway.
 *
 * @example
 * const call = await heldQuestionOwner(call, ended, [...ownRequests], () => calls.has(call));
 * if (call === undefined) refuse();
 */
export async function heldQuestionOwner<Call>(
  call: Call,
  callEnded: Promise<void>,
  others: readonly Promise<boolean>[],
  running: () => boolean,
  holdMs = QUESTION_HOLD_MS,
): Promise<Call | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), holdMs);
  });
  try {
    const answered = Promise.all(others).then((each) => each.every(Boolean));
    const ended = callEnded.then(() => false as const);
    const owned = await Promise.race([answered, ended, expired]);
    return owned && running() ? call : undefined;
  } finally {
    clearTimeout(timer);
  }
}
