// Operations whose issues are still open answer 501 rest_not_implemented in the error shape.
import { notImplemented } from '../http/errors.js';
import type { Reply } from '../http/handler.js';

const pending = async (): Promise<Reply> => {
  throw notImplemented();
};

const names = (resource: string) => [
  `list${resource}s`,
  `create${resource}`,
  ...['get', 'update', 'put', 'patch', 'delete'].flatMap((verb) => [`${verb}${resource}`, `${verb}${resource}BySlug`]),
];

export const pendingOperations = Object.fromEntries(
  ['Event'].flatMap(names).map((operationId) => [operationId, pending]),
);
