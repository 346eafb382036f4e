-- CreateTable
CREATE TABLE "idempotency_keys" (
    "user_id" INTEGER NOT NULL,
    "key" VARCHAR(200) NOT NULL,
    "operation" VARCHAR(100) NOT NULL,
    "request_hash" CHAR(64) NOT NULL,
    "status" INTEGER,
    "headers" JSONB,
    "body" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "idempotency_keys_pkey" PRIMARY KEY ("user_id","key")
);

-- CreateIndex
CREATE INDEX "idempotency_keys_created_at_idx" ON "idempotency_keys"("created_at");

