/**
 * Opens `url` in the user's browser. Commands take one as an option, so tests replace the
 * browser with code that signs in over HTTP and follows the redirect to the loopback listener.
 * A rejection means no browser could be opened (the URL is printed anyway).
 */
export type BrowserOpener = (url: string) => Promise<void>;

/**
 * The system browser, through the `open` package (loaded only when a flow needs it).
 *
 * @example
 * await openSystemBrowser('https://gateway.example.com/cli/authorize?...');
 */
export const openSystemBrowser: BrowserOpener = async (url) => {
  const { default: open } = await import('open');
  const child = await open(url);
  // The opener (xdg-open, `open`, start) must not keep the command alive once it has run.
  child.unref();
};
