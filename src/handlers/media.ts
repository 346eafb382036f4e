// The media library's operations (docs/decisions.md, "Images"): upload, list, read, change the
// texts, delete.
import type { components } from '../../generated/api.js';
import { pageOf } from '../domain/paging.js';
import type { MediaRecord } from '../domain/records.js';
import { versionOf } from '../http/conditional.js';
import type { Call, Reply } from '../http/handler.js';
import { listLinks, postListReply } from '../http/lists.js';
import { UPLOAD } from '../http/upload-body.js';
import type { Upload } from '../media/images.js';
import { truthy } from '../lib/truthy.js';
import { serializeMedia } from '../serializers/images.js';
import * as service from '../services/media.js';

type MediaTexts = components['schemas']['MediaTexts'];

const validators = (row: MediaRecord) => ({ version: versionOf(row.modifiedAt), lastModified: row.modifiedAt });

export async function listMedia(call: Call<'listMedia'>): Promise<Reply> {
  const { page: pageNumber, per_page, search, author, unreferenced } = call.query;
  const page = pageOf(pageNumber, per_page);
  const onlyUnreferenced = unreferenced === undefined ? undefined : truthy(unreferenced);
  const { total, items } = await service.listMedia(
    call.context,
    { search, author, unreferenced: onlyUnreferenced },
    { take: page.perPage, skip: page.offset },
  );
  const links = listLinks(
    `${call.urls.base}/media/`,
    [
      ['search', search],
      ['author', author],
      ['unreferenced', onlyUnreferenced ? true : undefined],
    ],
    page,
    total,
  );
  const serialized = items.map((row) => serializeMedia(row, call.urls, call.context.siteZone));
  return postListReply('media', serialized, links, total, page.perPage);
}

export async function uploadMedia(call: Call<'uploadMedia'>): Promise<Reply> {
  // The form's text fields, validated by the document; the file beside them (media/upload-body.ts).
  const body = (call.body as unknown as (MediaTexts & { [UPLOAD]?: Upload }) | undefined) ?? {};
  const row = await service.createMedia(call.context, body[UPLOAD], body, call.config.media);
  const media = serializeMedia(row, call.urls, call.context.siteZone);
  return { status: 201, body: media, headers: { Location: media.rest_url }, ...validators(row) };
}

export async function getMedia(call: Call<'getMedia'>): Promise<Reply> {
  const row = await service.readMedia(call.context, call.params.id);
  return { body: serializeMedia(row, call.urls, call.context.siteZone), ...validators(row) };
}

async function update(call: Call<'updateMedia' | 'putMedia' | 'patchMedia'>): Promise<Reply> {
  const row = await service.updateMedia(call.context, call.params.id, call.body);
  return { body: serializeMedia(row, call.urls, call.context.siteZone), ...validators(row) };
}

export const updateMedia = update;
export const putMedia = update;
export const patchMedia = update;

export async function deleteMedia(call: Call<'deleteMedia'>): Promise<Reply> {
  const row = await service.deleteMedia(call.context, call.params.id);
  return { body: { deleted: true, previous: serializeMedia(row, call.urls, call.context.siteZone) } };
}
