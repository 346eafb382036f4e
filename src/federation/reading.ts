// How federation reads events: as anonymous readers see them (what the public pages show), with
// every URL from PUBLIC_URL, as the webhooks' messages are built outside any request.
import type { Config } from '../config.js';
import { configuredUrls } from '../http/urls.js';
import type { EventSerializeOptions } from '../serializers/events.js';

export const anonymousReading = (config: Config): EventSerializeOptions => ({
  urls: configuredUrls(config, config.port),
  siteZone: config.siteTimezone,
  caller: null,
  single: false,
  currency: config.costCurrency,
});
