// The document's `x-required-role` (what http/security.ts checks early, and what clients read) says
// the same as the capability each service asserts (src/auth/capabilities.ts): a door that is not
// the REST API gets no more and no less than the API gives.
import { describe, expect, it } from 'vitest';
import { type Capability, CAPABILITIES, may } from '../../src/auth/capabilities.js';
import { ROLES } from '../../src/auth/roles.js';
import { requiredRole } from '../../src/openapi.js';

/** The capability behind each operation that asks a role; reads ask none. */
const BEHIND: Record<string, Capability> = {
  createEvent: 'create events',
  createVenue: 'create venues',
  createOrganizer: 'create organizers',
  createCategory: 'manage categories',
  updateCategory: 'manage categories',
  deleteCategory: 'manage categories',
  createTag: 'manage tags',
  updateTag: 'manage tags',
  deleteTag: 'manage tags',
  uploadMedia: 'upload media',
  createWebhook: 'manage webhooks',
  followFederationSource: 'manage federation sources',
  updateFederationSource: 'manage federation sources',
  unfollowFederationSource: 'manage federation sources',
  exportRsvps: 'administer rsvps',
  eraseRsvps: 'administer rsvps',
};

describe('capabilities and the document', () => {
  it.each(Object.entries(BEHIND))('%s asks the role its capability needs', (operationId, capability) => {
    expect(requiredRole(operationId)).toBe(CAPABILITIES[capability]);
  });

  it('gives each capability to its role and those above it, to no one below nor anonymous callers', () => {
    for (const [capability, least] of Object.entries(CAPABILITIES) as [Capability, string][]) {
      const at = ROLES.indexOf(least as (typeof ROLES)[number]);
      ROLES.forEach((role, index) => {
        expect(may({ id: 1, login: 'x', role }, capability), `${role} ${capability}`).toBe(index <= at);
      });
      expect(may(null, capability)).toBe(false);
    }
  });
});
