-- CreateTable
CREATE TABLE "imported_items" (
    "source" VARCHAR(500) NOT NULL,
    "kind" VARCHAR(20) NOT NULL,
    "external_id" VARCHAR(1000) NOT NULL,
    "local_id" INTEGER NOT NULL,
    "source_modified" VARCHAR(40),
    "content_hash" CHAR(64) NOT NULL,
    "imported_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "imported_items_pkey" PRIMARY KEY ("source","kind","external_id")
);

