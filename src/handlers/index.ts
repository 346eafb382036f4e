// Every operationId of the document mapped to its handler. `satisfies HandlerMap` makes a missing
// or misspelled handler a compile error; test/contract.test.ts checks the same at run time.
import type { HandlerMap } from '../http/handler.js';
import * as categories from './categories.js';
import * as changes from './changes.js';
import * as discovery from './discovery.js';
import * as events from './events.js';
import * as followers from './followers.js';
import * as federationSources from './federation-sources.js';
import * as media from './media.js';
import * as organizers from './organizers.js';
import * as rsvps from './rsvps.js';
import * as rsvpAdmin from './rsvp-admin.js';
import * as submissions from './submissions.js';
import * as tags from './tags.js';
import * as venues from './venues.js';
import * as webhooks from './webhooks.js';

export const handlers = {
  ...events,
  ...rsvps,
  ...rsvpAdmin,
  ...categories,
  ...tags,
  ...venues,
  ...organizers,
  ...discovery,
  ...changes,
  ...webhooks,
  ...media,
  ...submissions,
  ...followers,
  ...federationSources,
} satisfies HandlerMap;
