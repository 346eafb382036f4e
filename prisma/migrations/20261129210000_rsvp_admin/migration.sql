-- RSVP administration (docs/decisions.md, "RSVP"): check-in codes for every RSVP, and erasure of a
-- person's data on request.
--
-- Erasure keeps the row, so that the event's counts stay right, but drops what names the person:
-- name and e-mail become null and `erased_at` says when. The unique index on (event_id, lower(email))
-- takes any number of nulls, so erased rows never block a new RSVP from the same address.
ALTER TABLE "rsvps"
  ALTER COLUMN "name" DROP NOT NULL,
  ALTER COLUMN "email" DROP NOT NULL,
  ADD COLUMN "erased_at" TIMESTAMPTZ(3),
  ADD CONSTRAINT "rsvps_person_check" CHECK ("erased_at" IS NOT NULL OR ("name" IS NOT NULL AND "email" IS NOT NULL));

-- RSVPs made before check-in codes get one now: 8 characters of Crockford's base32 alphabet, as
-- src/lib/check-in-code.ts draws them, here from gen_random_uuid()'s random bytes (a byte modulo 32
-- is unbiased; bytes 6 and 8 carry the UUID's version and variant, so they are skipped). A code
-- already taken in the same event is drawn again.
DO $$
DECLARE
  target integer;
BEGIN
  FOR target IN SELECT "id" FROM "rsvps" WHERE "check_in_code" IS NULL ORDER BY "id" LOOP
    LOOP
      BEGIN
        UPDATE "rsvps" SET "check_in_code" = (
          SELECT string_agg(substr('0123456789ABCDEFGHJKMNPQRSTVWXYZ', 1 + get_byte(u.bytes, i) % 32, 1), '' ORDER BY i)
          FROM (SELECT uuid_send(gen_random_uuid()) AS bytes) u, unnest(ARRAY[0, 1, 2, 3, 4, 5, 10, 11]) i)
        WHERE "id" = target;
        EXIT;
      EXCEPTION WHEN unique_violation THEN
        -- Another RSVP of the event has this code: draw again.
      END;
    END LOOP;
  END LOOP;
END $$;
