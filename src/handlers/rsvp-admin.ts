// An event's RSVPs at the door and in the office: check-in by code for its organisers, the CSV export
// and erasure on request for administrators (services/rsvps/check-in.ts, export.ts, erasure.ts).
import { create as contentDisposition } from 'content-disposition';
import type { Call, Reply } from '../http/handler.js';
import { rsvpCsv } from '../serializers/rsvp-csv.js';
import { serializeRsvp } from '../serializers/rsvps.js';
import { checkInByCode } from '../services/rsvps/check-in.js';
import { eraseRsvps as erase } from '../services/rsvps/erasure.js';
import { exportRsvps as readExport } from '../services/rsvps/export.js';

export async function checkInRsvp(call: Call<'checkInRsvp'>): Promise<Reply> {
  return { body: serializeRsvp(await checkInByCode(call.context, call.params.id, call.body.code)) };
}

export async function exportRsvps(call: Call<'exportRsvps'>): Promise<Reply> {
  const { slug, version, rows } = await readExport(call.context, call.params.id);
  return {
    body: undefined,
    stream: rsvpCsv(rows),
    contentType: 'text/csv; charset=utf-8',
    etag: `"rsvps-${version}"`,
    headers: { 'Content-Disposition': contentDisposition(`${slug}-rsvps.csv`) },
    unkept: true,
  };
}

export async function eraseRsvps(call: Call<'eraseRsvps'>): Promise<Reply> {
  return { body: await erase(call.context, call.body.email) };
}
