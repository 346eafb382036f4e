-- CreateIndex
CREATE INDEX "imported_items_local_id_kind_idx" ON "imported_items"("local_id", "kind");

