// Public submissions as services give them and serializers write them (services/submissions/).
import type { EventRecord } from './records.js';

export type SubmissionState = 'pending' | 'spam' | 'approved' | 'rejected';

export interface SubmissionRow {
  id: number;
  eventId: number;
  state: SubmissionState;
  submitterName: string;
  /** Null for a remote event (federation/remote-events.ts), which names its source instead. */
  submitterEmail: string | null;
  accountId: number | null;
  newVenueId: number | null;
  newOrganizerId: number | null;
  newImageId: number | null;
  suggestedCategories: string[];
  links: string[];
  spamReasons: string[];
  reason: string | null;
  submittedAt: Date;
  decidedAt: Date | null;
  /** The followed source of a remote event (null once unfollowed), and the event's URL there. */
  federationSourceId: number | null;
  sourceActor: string | null;
  sourceUrl: string | null;
}

/** A submission with its event, as editors read it. */
export interface SubmissionRecord extends SubmissionRow {
  event: EventRecord;
}

/** A submission as its submitter follows it. */
export interface SubmissionStatus {
  id: number;
  state: 'pending' | 'approved' | 'rejected';
  title: string;
  startLocal: Date;
  submittedAt: Date;
  decidedAt: Date | null;
  reason: string | null;
  /** The event's slug once approved, for its page. */
  slug: string | null;
}

/** A submission taken: its ID and the submitter's token, answered once. */
export interface Receipt {
  id: number;
  token: string;
}
