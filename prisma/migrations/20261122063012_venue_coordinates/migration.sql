-- CreateIndex
CREATE INDEX "venues_geo_lat_geo_lng_idx" ON "venues"("geo_lat", "geo_lng");

