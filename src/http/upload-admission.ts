// Who may send an upload's bytes (http/upload-body.ts reads none before this answers true): the
// caller, counted as a write before anything is read, who may upload, to an instance not busy
// making images. A caller who may not is left to the operation, which refuses it as any write. A
// public submission's image is sent by anyone the service takes submissions from: one it takes
// none from is refused here, before the megabytes, as the operation would.
import type { Request, Response } from 'express';
import { may } from '../auth/capabilities.js';
import type { Caller } from '../auth/roles.js';
import type { SubmissionSettings } from '../config/submissions.js';
import { MediaRefused } from '../domain/errors.js';
import { submissionsOpenTo } from '../services/submissions/submit.js';
import { busy as imagesBusy } from '../media/images.js';
import type { RateLimits } from './rate-limits.js';
import { COUNTED } from './security.js';

type Identify = (req: Request, res: Response) => Promise<Caller>;

export function admitUpload(
  identify: Identify,
  rateLimits: RateLimits,
): (req: Request, res: Response) => Promise<boolean> {
  return async (req, res) => {
    const caller = await counted(identify, rateLimits, req, res);
    if (!may(caller, 'upload media')) return false;
    refuseWhenBusy();
    return true;
  };
}

export function admitSubmissionImage(
  identify: Identify,
  rateLimits: RateLimits,
  settings: SubmissionSettings,
): (req: Request, res: Response) => Promise<boolean> {
  return async (req, res) => {
    submissionsOpenTo(settings, await counted(identify, rateLimits, req, res));
    refuseWhenBusy();
    return true;
  };
}

/** The caller, counted as a write. */
async function counted(identify: Identify, rateLimits: RateLimits, req: Request, res: Response): Promise<Caller> {
  const caller = await identify(req, res);
  await rateLimits.take('writes', { caller, address: req.ip }, res);
  res.locals[COUNTED] = true;
  return caller;
}

function refuseWhenBusy() {
  if (imagesBusy())
    throw new MediaRefused('busy', 'This instance is making as many images as it takes; try again in a moment.');
}
