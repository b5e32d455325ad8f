// Names and URLs of the test databases (shared by the global setup and the test files).

/** The same server and credentials as `url`, database `name`. */
export function databaseUrl(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** CREATE DATABASE with byte-order collation, as the ledger requires; copied from `template` when given. */
export function createDatabaseSql(name: string, template = "template0"): string {
  const options = template === "template0" ? " ENCODING 'UTF8' LC_COLLATE 'C' LC_CTYPE 'C'" : "";
  return `CREATE DATABASE "${name}" TEMPLATE "${template}"${options}`;
}
