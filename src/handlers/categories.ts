import { CATEGORY } from '../domain/records.js';
import { termOperations } from './terms.js';

const ops = termOperations(CATEGORY);

export const listCategories = ops.list;
export const createCategory = ops.create;
export const getCategory = ops.get;
export const updateCategory = ops.update;
export const putCategory = ops.update;
export const patchCategory = ops.update;
export const deleteCategory = ops.remove;
