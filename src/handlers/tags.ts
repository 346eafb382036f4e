import { TAG } from '../domain/records.js';
import { termOperations } from './terms.js';

const ops = termOperations(TAG);

export const listTags = ops.list;
export const createTag = ops.create;
export const getTag = ops.get;
export const updateTag = ops.update;
export const putTag = ops.update;
export const patchTag = ops.update;
export const deleteTag = ops.remove;
