import type { ErrorHandler } from 'hono';
import type { AppEnv } from './app-env.js';
import { errorResponse, HttpError } from './errors.js';
import type { ServerLogger } from './logger.js';
import { httpErrorOf } from './route.js';

/**
 * The app's error handler, the last stop of anything a request's handler throws: an
 * {@link HttpError} or a service's refusal answers as itself (`httpErrorOf`); a failure that
 * means the database is away answers `unavailable`'s 503 (logged as a warning); anything else
 * is a bug, logged with its stack and answered as a plain 500 that names nothing.
 *
 * @example
 * app.onError(appErrorHandler({ logger, unavailable: (error) => undefined }));
 */
export function appErrorHandler(options: {
  logger: ServerLogger;
  /** The answer when `error` means the database is unavailable; undefined for any other. */
  unavailable: (error: unknown) => HttpError | undefined;
}): ErrorHandler<AppEnv> {
  const { logger } = options;
  return (error, c) => {
    const answer = httpErrorOf(error);
    if (answer !== undefined) return errorResponse(c, answer);
    const unavailable = options.unavailable(error);
    if (unavailable !== undefined) {
      logger.warn('database unavailable', {
        requestId: c.get('requestId'),
        route: c.req.routePath,
        error: error instanceof Error ? error.message : String(error),
      });
      return errorResponse(c, unavailable);
    }
    logger.error('unhandled error', {
      requestId: c.get('requestId'),
      route: c.req.routePath,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
    return errorResponse(
      c,
      new HttpError('internal', 'Something went wrong on the server; the error is logged'),
    );
  };
}
