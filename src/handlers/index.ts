// Every operationId of the document mapped to its handler. `satisfies HandlerMap` makes a missing
// or misspelled handler a compile error; test/contract.test.ts checks the same at run time.
import type { HandlerMap } from '../http/handler.js';
import * as categories from './categories.js';
import * as discovery from './discovery.js';
import * as organizers from './organizers.js';
import { pendingOperations } from './pending.js';
import * as tags from './tags.js';
import * as venues from './venues.js';

const implemented = { ...categories, ...tags, ...venues, ...organizers, ...discovery };

export const handlers = {
  ...(pendingOperations as unknown as Pick<HandlerMap, Exclude<keyof HandlerMap, keyof typeof implemented>>),
  ...implemented,
} satisfies HandlerMap;
