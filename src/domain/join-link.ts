// A link to join an event online as the API takes it (openapi/components/schemas/VirtualUrl.yaml:
// https, with a host, no white space, at most 2,000 characters): the one rule the doors that read
// links from elsewhere (ical/read-online.ts, import/tec-status.ts) apply before they write one.
import { fullFormats } from 'ajv-formats/dist/formats.js';

/** The longest link the API takes (VirtualUrl.yaml). */
const MAX_URL = 2000;
const URI = fullFormats.uri as (text: string) => boolean;
// The host and the rest are told apart by their first character, so the test runs in linear time.
const JOIN_LINK = /^https:\/\/[^/?#\s]+([/?#]\S*)?$/i;

export const isJoinLink = (text: string) => text.length <= MAX_URL && JOIN_LINK.test(text) && URI(text);
