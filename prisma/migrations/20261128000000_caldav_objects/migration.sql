-- What CalDAV clients gave events beyond their fields (prisma/schema.prisma, DavObject). No
-- data_changed trigger: no REST answer is built from it, and every CalDAV write that changes it
-- writes its event too (src/caldav/write.ts).
-- CreateTable
CREATE TABLE "dav_objects" (
    "event_id" INTEGER NOT NULL,
    "name" VARCHAR(255),
    "extra" TEXT NOT NULL DEFAULT '',

    CONSTRAINT "dav_objects_pkey" PRIMARY KEY ("event_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "dav_objects_name_key" ON "dav_objects"("name");

