// The organizer operations: the shared ones of venues-and-organizers.ts, bound to the kind.
import { ORGANIZER } from '../domain/records.js';
import { venueOrOrganizerOperations } from './venues-and-organizers.js';

const ops = venueOrOrganizerOperations(ORGANIZER);

export const listOrganizers = ops.list;
export const createOrganizer = ops.create;
export const getOrganizer = ops.get;
export const getOrganizerBySlug = ops.get;
export const updateOrganizer = ops.update;
export const putOrganizer = ops.update;
export const patchOrganizer = ops.update;
export const updateOrganizerBySlug = ops.update;
export const putOrganizerBySlug = ops.update;
export const patchOrganizerBySlug = ops.update;
export const deleteOrganizer = ops.remove;
export const deleteOrganizerBySlug = ops.remove;
