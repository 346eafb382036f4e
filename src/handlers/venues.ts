import { VENUE } from '../services/linked-posts.js';
import { linkedOperations } from './linked-posts.js';

const ops = linkedOperations(VENUE);

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
