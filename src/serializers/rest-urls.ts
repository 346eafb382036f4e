// The REST URLs of the objects, in one place: `rest_url`, a term's `urls` and every `_links` entry
// name an object's route alike.
import type { Urls } from '../http/urls.js';

export type Collection = 'events' | 'venues' | 'organizers' | 'categories' | 'tags' | 'media';

export const collectionUrl = (collection: Collection, urls: Urls) => `${urls.base}/${collection}`;

export const restUrl = (collection: Collection, id: number, urls: Urls) => `${collectionUrl(collection, urls)}/${id}`;
