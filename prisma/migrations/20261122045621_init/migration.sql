-- Events, venues and organizers share one ID space, as posts do (see schema.prisma).
CREATE SEQUENCE "post_id_seq";

-- CreateEnum
CREATE TYPE "Role" AS ENUM ('administrator', 'editor', 'author', 'contributor', 'subscriber');

-- CreateEnum
CREATE TYPE "PostStatus" AS ENUM ('publish', 'future', 'draft', 'pending', 'private', 'trash');

-- CreateEnum
CREATE TYPE "Taxonomy" AS ENUM ('tribe_events_cat', 'post_tag');

-- CreateTable
CREATE TABLE "users" (
    "id" SERIAL NOT NULL,
    "login" VARCHAR(60) NOT NULL,
    "display_name" VARCHAR(250) NOT NULL,
    "email" VARCHAR(254) NOT NULL,
    "role" "Role" NOT NULL DEFAULT 'subscriber',
    "password_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "app_passwords" (
    "id" SERIAL NOT NULL,
    "uuid" UUID NOT NULL,
    "user_id" INTEGER NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),

    CONSTRAINT "app_passwords_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "events" (
    "id" INTEGER NOT NULL DEFAULT nextval('post_id_seq'),
    "author_id" INTEGER,
    "status" "PostStatus" NOT NULL DEFAULT 'publish',
    "slug" VARCHAR(200) NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "excerpt" TEXT NOT NULL DEFAULT '',
    "published_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modified_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "start_local" TIMESTAMP(0) NOT NULL,
    "end_local" TIMESTAMP(0) NOT NULL,
    "start_utc" TIMESTAMPTZ(0) NOT NULL,
    "end_utc" TIMESTAMPTZ(0) NOT NULL,
    "timezone" VARCHAR(64) NOT NULL,
    "all_day" BOOLEAN NOT NULL DEFAULT false,
    "cost" JSONB,
    "website" VARCHAR(2000),
    "image" VARCHAR(2000),
    "show_map" BOOLEAN NOT NULL DEFAULT false,
    "show_map_link" BOOLEAN NOT NULL DEFAULT false,
    "hide_from_listings" BOOLEAN NOT NULL DEFAULT false,
    "sticky" BOOLEAN NOT NULL DEFAULT false,
    "featured" BOOLEAN NOT NULL DEFAULT false,
    "parent_id" INTEGER,

    CONSTRAINT "events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "venues" (
    "id" INTEGER NOT NULL DEFAULT nextval('post_id_seq'),
    "author_id" INTEGER,
    "status" "PostStatus" NOT NULL DEFAULT 'publish',
    "slug" VARCHAR(200) NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "excerpt" TEXT NOT NULL DEFAULT '',
    "published_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modified_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "address" TEXT NOT NULL DEFAULT '',
    "city" TEXT NOT NULL DEFAULT '',
    "country" TEXT NOT NULL DEFAULT '',
    "province" TEXT NOT NULL DEFAULT '',
    "state" TEXT NOT NULL DEFAULT '',
    "zip" TEXT NOT NULL DEFAULT '',
    "phone" TEXT NOT NULL DEFAULT '',
    "stateprovince" TEXT NOT NULL DEFAULT '',
    "website" VARCHAR(2000) NOT NULL DEFAULT '',
    "image" VARCHAR(2000),
    "show_map" BOOLEAN NOT NULL DEFAULT true,
    "show_map_link" BOOLEAN NOT NULL DEFAULT true,
    "geo_lat" DOUBLE PRECISION,
    "geo_lng" DOUBLE PRECISION,

    CONSTRAINT "venues_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "organizers" (
    "id" INTEGER NOT NULL DEFAULT nextval('post_id_seq'),
    "author_id" INTEGER,
    "status" "PostStatus" NOT NULL DEFAULT 'publish',
    "slug" VARCHAR(200) NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "excerpt" TEXT NOT NULL DEFAULT '',
    "published_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "modified_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "phone" TEXT NOT NULL DEFAULT '',
    "website" VARCHAR(2000) NOT NULL DEFAULT '',
    "email" VARCHAR(254) NOT NULL DEFAULT '',
    "image" VARCHAR(2000),

    CONSTRAINT "organizers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "terms" (
    "id" SERIAL NOT NULL,
    "taxonomy" "Taxonomy" NOT NULL,
    "name" VARCHAR(200) NOT NULL,
    "slug" VARCHAR(200) NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "parent_id" INTEGER,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "terms_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "event_venues" (
    "event_id" INTEGER NOT NULL,
    "venue_id" INTEGER NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "event_venues_pkey" PRIMARY KEY ("event_id","venue_id")
);

-- CreateTable
CREATE TABLE "event_organizers" (
    "event_id" INTEGER NOT NULL,
    "organizer_id" INTEGER NOT NULL,
    "position" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "event_organizers_pkey" PRIMARY KEY ("event_id","organizer_id")
);

-- CreateTable
CREATE TABLE "event_terms" (
    "event_id" INTEGER NOT NULL,
    "term_id" INTEGER NOT NULL,

    CONSTRAINT "event_terms_pkey" PRIMARY KEY ("event_id","term_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_login_key" ON "users"("login");

-- CreateIndex
CREATE UNIQUE INDEX "app_passwords_uuid_key" ON "app_passwords"("uuid");

-- CreateIndex
CREATE INDEX "app_passwords_user_id_idx" ON "app_passwords"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "events_slug_key" ON "events"("slug");

-- CreateIndex
CREATE INDEX "events_start_utc_id_idx" ON "events"("start_utc", "id");

-- CreateIndex
CREATE INDEX "events_status_start_utc_idx" ON "events"("status", "start_utc");

-- CreateIndex
CREATE INDEX "events_author_id_idx" ON "events"("author_id");

-- CreateIndex
CREATE INDEX "events_parent_id_idx" ON "events"("parent_id");

-- CreateIndex
CREATE UNIQUE INDEX "venues_slug_key" ON "venues"("slug");

-- CreateIndex
CREATE INDEX "venues_status_published_at_idx" ON "venues"("status", "published_at");

-- CreateIndex
CREATE UNIQUE INDEX "organizers_slug_key" ON "organizers"("slug");

-- CreateIndex
CREATE INDEX "organizers_status_published_at_idx" ON "organizers"("status", "published_at");

-- CreateIndex
CREATE INDEX "terms_taxonomy_name_idx" ON "terms"("taxonomy", "name");

-- CreateIndex
CREATE INDEX "terms_parent_id_idx" ON "terms"("parent_id");

-- CreateIndex
CREATE UNIQUE INDEX "terms_taxonomy_slug_key" ON "terms"("taxonomy", "slug");

-- CreateIndex
CREATE INDEX "event_venues_venue_id_idx" ON "event_venues"("venue_id");

-- CreateIndex
CREATE INDEX "event_organizers_organizer_id_idx" ON "event_organizers"("organizer_id");

-- CreateIndex
CREATE INDEX "event_terms_term_id_idx" ON "event_terms"("term_id");

-- AddForeignKey
ALTER TABLE "app_passwords" ADD CONSTRAINT "app_passwords_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "events" ADD CONSTRAINT "events_parent_id_fkey" FOREIGN KEY ("parent_id") REFERENCES "events"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "venues" ADD CONSTRAINT "venues_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "organizers" ADD CONSTRAINT "organizers_author_id_fkey" FOREIGN KEY ("author_id") REFERENCES "users"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "terms" ADD CONSTRAINT "terms_parent_id_fkey" FOREIGN KEY ("parent_id") REFERENCES "terms"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_venues" ADD CONSTRAINT "event_venues_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_venues" ADD CONSTRAINT "event_venues_venue_id_fkey" FOREIGN KEY ("venue_id") REFERENCES "venues"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_organizers" ADD CONSTRAINT "event_organizers_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_organizers" ADD CONSTRAINT "event_organizers_organizer_id_fkey" FOREIGN KEY ("organizer_id") REFERENCES "organizers"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_terms" ADD CONSTRAINT "event_terms_event_id_fkey" FOREIGN KEY ("event_id") REFERENCES "events"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "event_terms" ADD CONSTRAINT "event_terms_term_id_fkey" FOREIGN KEY ("term_id") REFERENCES "terms"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Term names are unique, case-insensitively, among the siblings of one taxonomy (Prisma cannot
-- express an index on expressions; schema.prisma notes it).
CREATE UNIQUE INDEX "terms_taxonomy_name_parent_key" ON "terms" ("taxonomy", lower("name"), COALESCE("parent_id", 0));
