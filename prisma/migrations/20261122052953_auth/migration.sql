-- AlterTable
ALTER TABLE "app_passwords" ADD COLUMN     "lookup" VARCHAR(16) NOT NULL;

-- CreateTable
CREATE TABLE "auth_failures" (
    "client" VARCHAR(100) NOT NULL,
    "failures" INTEGER NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "auth_failures_pkey" PRIMARY KEY ("client")
);

-- CreateIndex
CREATE UNIQUE INDEX "app_passwords_lookup_key" ON "app_passwords"("lookup");

