// The venue operations: the shared ones of venues-and-organizers.ts, bound to the kind.
import { VENUE } from '../domain/records.js';
import { venueOrOrganizerOperations } from './venues-and-organizers.js';

const ops = venueOrOrganizerOperations(VENUE);

export const listVenues = ops.list;
export const createVenue = ops.create;
export const getVenue = ops.get;
export const getVenueBySlug = ops.get;
export const updateVenue = ops.update;
export const putVenue = ops.update;
export const patchVenue = ops.update;
export const updateVenueBySlug = ops.update;
export const putVenueBySlug = ops.update;
export const patchVenueBySlug = ops.update;
export const deleteVenue = ops.remove;
export const deleteVenueBySlug = ops.remove;
