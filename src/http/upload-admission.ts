// Who may send an upload's bytes (http/upload-body.ts reads none before this answers true): the
// caller, counted as a write before anything is read, who may upload, to an instance not busy
// making images. A caller who may not is left to the operation, which refuses it as any write.
import type { Request, Response } from 'express';
import { may } from '../auth/capabilities.js';
import type { Caller } from '../auth/roles.js';
import { MediaRefused } from '../domain/errors.js';
import { busy as imagesBusy } from '../media/images.js';
import type { RateLimits } from './rate-limits.js';
import { COUNTED } from './security.js';

export function admitUpload(
  identify: (req: Request, res: Response) => Promise<Caller>,
  rateLimits: RateLimits,
): (req: Request, res: Response) => Promise<boolean> {
  return async (req, res) => {
    const caller = await identify(req, res);
    await rateLimits.take('writes', { caller, address: req.ip }, res);
    res.locals[COUNTED] = true;
    if (!may(caller, 'upload media')) return false;
    if (imagesBusy())
      throw new MediaRefused('busy', 'This instance is making as many images as it takes; try again in a moment.');
    return true;
  };
}
