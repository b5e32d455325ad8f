// The page cache a connection may take: kept apart from db.ts so that worker threads that open connections of
// their own need not load the migrations and drizzle to know it.

/** The most memory one connection's page cache may take, in KiB (64 MiB). */
export const PAGE_CACHE_KIB = 65_536;
