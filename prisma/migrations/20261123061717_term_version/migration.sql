-- Terms get a version like posts (If-Match is claimed on it); existing terms start at their creation.
ALTER TABLE "terms" ADD COLUMN     "modified_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;
UPDATE "terms" SET "modified_at" = "created_at";
