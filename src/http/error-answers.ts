// The last two middlewares of the app: a request nothing answered is a 404, and whatever was thrown
// on the way becomes the error shape (http/errors.ts), in the one place that writes errors.
import type { NextFunction, Request, Response } from 'express';
import { bodyParserError } from './body.js';
import { ApiError, noRoute, toApiError } from './errors.js';
import { sendReply } from './reply.js';

export const unrouted = () => (_req: Request, _res: Response, next: NextFunction) => {
  next(noRoute());
};

/** `onServerError` hears of every failure that becomes a 5xx without being one of ours, for logging. */
export const answerErrors =
  (onServerError?: (err: unknown, req: Request) => void) =>
  (err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const error = bodyParserError(err) ?? toApiError(err);
    if (error.status >= 500 && !(err instanceof ApiError)) onServerError?.(err, req);
    sendReply(req, res, { status: error.status, body: error.toBody(), headers: error.headers });
  };
