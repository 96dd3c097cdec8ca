/**
 * Reading a caller's export part by part through the {@link CallerDataStore}
 * port: its head, then each section page by page, so whoever writes it out
 * (the HTTP body, export_body.ts) holds one page at a time whatever the size
 * of the history. `readExport` gathers the whole document, for callers that
 * want it at once and know it is small (tests, tools).
 */
import type { Caller } from "../ports.ts";
import {
  type CallerDataStore,
  type CallerExport,
  EXPORT_SECTIONS,
  type ExportSection,
} from "./caller_data_port.ts";

/** How much one page may hold. */
export interface PageSize {
  /** Rows per page (default 200). */
  rows?: number;
  /** About this many bytes of JSON per page (default 1 MiB; a page has at least one row). */
  bytes?: number;
}

/** The pages of one section of `caller`'s export, in order, until one comes back empty. */
export async function* sectionPages(
  store: CallerDataStore,
  caller: Caller,
  section: ExportSection,
  { rows = 200, bytes = 1 << 20 }: PageSize = {},
): AsyncGenerator<Record<string, unknown>[]> {
  let after: string | undefined;
  do {
    const page = await store.exportPage(caller, section, { after, limit: rows, maxBytes: bytes });
    if (page.rows.length === 0) return;
    yield page.rows;
    after = page.next;
  } while (after !== undefined);
}

/** The whole export of `caller` as one value (its size is the history's: small ones only). */
export async function readExport(
  store: CallerDataStore,
  caller: Caller,
  size: PageSize = {},
): Promise<CallerExport> {
  const head = await store.exportHead(caller);
  const sections = {} as Record<ExportSection, Record<string, unknown>[]>;
  for (const section of EXPORT_SECTIONS) {
    sections[section] = [];
    for await (const rows of sectionPages(store, caller, section, size)) {
      sections[section].push(...rows);
    }
  }
  return { ...head, ...sections };
}
