/**
 * A place's time zones, without a network: an IANA name ("Europe/Lisbon"),
 * UTC, a country or a major city from {@link PLACE_TABLE}, or the city of an
 * IANA zone ("Tokyo", "New York", through Intl) — optionally followed by what
 * tells two of them apart ("Hyderabad Pakistan", "Portland, Oregon"). A
 * place with more than one zone (a country spanning several, a name several
 * cities share) comes back with each of them, so the answer can say so.
 */
import { PLACE_TABLE } from "./place_table.js";

/** One of a place's time zones, and which part of the place it serves. */
export interface PlaceZone {
  zone: string;
  label: string;
}

/** A place as written, and its time zones (more than one: the place is ambiguous). */
export interface Place {
  name: string;
  zones: PlaceZone[];
}

/** Words that tell no zone of a place from another. */
const CONNECTIVES = new Set(["and", "or", "in", "of", "at", "the", "to", "for", "vs"]);

/** The place `text` names, or undefined when it names none this module knows. */
export function resolvePlace(text: string): Place | undefined {
  const name = text.trim().replace(/[\s.,;:!?]+$/, "");
  if (name === "" || name.length > 64) return undefined;
  if (/^(?:utc|gmt|z|zulu|coordinated universal time)$/i.test(name)) {
    return { name: "UTC", zones: [{ zone: "UTC", label: "UTC" }] };
  }
  const offset = offsetZone(name);
  if (offset) return { name: offset.label, zones: [offset] };
  // "US" in capitals is the country; "us" is a pronoun.
  const key = name === "US" ? "usa" : placeKey(name);
  const known = lookup(key) ?? ianaZone(name);
  if (known) return { name, zones: known };
  const words = key.split(" ");
  // "Hyderabad Pakistan", "Portland, Oregon": a place, then what tells its zones apart.
  for (let split = words.length - 1; split >= 1; split--) {
    const headKey = words.slice(0, split).join(" ");
    const head = lookup(headKey);
    const rest = words.slice(split).join(" ");
    // "Springfield and" names no part of Springfield, though a label holds "and".
    if (!head || words.slice(split).every((word) => CONNECTIVES.has(word))) continue;
    // A country or a region the place is in ("Austin, Texas"), or a label's words ("Portland,
    // Oregon"); not another city ("Madrid, Barcelona"), nor the zone a label defaults to.
    const region = isQualifier(rest) ? lookup(rest)! : [];
    const zones = head.filter(({ zone, label }) =>
      region.some((each) => each.zone === zone) ||
      (label !== zone && ` ${placeKey(label)} `.includes(` ${rest} `))
    );
    if (zones.length > 0) return { name, zones };
    // A town the table does not know, by a known city's name: "Paris, Texas" (not "India, China").
    if (region.length > 0 && !isQualifier(headKey)) return { name, zones: region };
  }
  return undefined;
}

/**
 * "UTC+5", "GMT -3": a whole-hour offset as IANA's `Etc/GMT∓h` zone (whose
 * sign is the other way round); "UTC+5:30" as the zone that keeps that
 * offset all year (`Asia/Kolkata`); undefined for anything else.
 */
function offsetZone(name: string): PlaceZone | undefined {
  const match = /^(?:utc|gmt)\s*([+-−])\s*(\d{1,2})(?::?(\d{2}))?$/i.exec(name);
  if (!match) return undefined;
  const hours = Number(match[2]);
  const east = match[1] === "+";
  if (match[3] !== undefined && match[3] !== "00") {
    // "UTC+5:30": the zone that keeps that offset all year.
    const label = `UTC${east ? "+" : "-"}${hours}:${match[3]}`;
    const zone = PART_HOUR_ZONES[`${east ? "+" : "-"}${hours}:${match[3]}`];
    return zone ? { zone, label } : undefined;
  }
  if (hours === 0) return { zone: "UTC", label: "UTC" };
  if (hours > (east ? 14 : 12)) return undefined;
  const label = `UTC${east ? "+" : "-"}${hours}`;
  return { zone: `Etc/GMT${east ? "-" : "+"}${hours}`, label };
}

/** Offsets off the whole hour, each the zone that keeps it all year (no daylight saving). */
const PART_HOUR_ZONES: Record<string, string> = {
  "+3:30": "Asia/Tehran",
  "+4:30": "Asia/Kabul",
  "+5:30": "Asia/Kolkata",
  "+5:45": "Asia/Kathmandu",
  "+6:30": "Asia/Yangon",
  "+8:45": "Australia/Eucla",
  "+9:30": "Australia/Darwin",
  "-9:30": "Pacific/Marquesas",
};

/** What time it is in one zone of a place. */
export interface PlaceTime {
  time_zone: string;
  label: string;
  /** The local date and time, with the zone's offset ("Friday, 27 November 2026 at 22:54 GMT+5:30"). */
  local: string;
}

/** Most zones an answer names. */
const MAX_ZONES = 6;

/** The time in each of the place's zones at `now`, and one sentence saying it. */
export function timesIn(place: Place, now: Date): { times: PlaceTime[]; summary: string } {
  const times = place.zones.slice(0, MAX_ZONES).map(({ zone, label }) => ({
    time_zone: zone,
    label,
    local: new Intl.DateTimeFormat("en-GB", {
      timeZone: zone,
      dateStyle: "full",
      timeStyle: "short",
    }).format(now) + ` ${offsetOf(zone, now)}`,
  }));
  if (times.length === 1) {
    const [{ time_zone, local }] = times;
    const name = asWritten(place.name);
    // "UTC+5", not "UTC+5 (Etc/GMT-5)": IANA's offset zones read the other way round.
    const where = name.toLowerCase() === time_zone.toLowerCase()
      ? time_zone
      : time_zone.startsWith("Etc/")
      ? name
      : `${name} (${time_zone})`;
    return { times, summary: `In ${where} it is ${local}.` };
  }
  const each = times.map(({ time_zone, label }) =>
    `${
      new Intl.DateTimeFormat("en-GB", {
        timeZone: time_zone,
        weekday: "long",
        hour: "2-digit",
        minute: "2-digit",
      }).format(now)
    } in ${label}`
  );
  const listed = `${each.slice(0, -1).join(", ")} and ${each.at(-1)}`;
  return {
    times,
    summary: `"${asWritten(place.name)}" has more than one time zone: it is ${listed}. ` +
      "Say which one you mean for a single answer.",
  };
}

/** A place read at one instant: its name as answered, its zone, and the instant. */
export interface ReadPlace {
  place: string;
  time_zone: string;
  iso: string;
}

/**
 * The hours between places read at one time, the first against each other:
 * "Tokyo is 8 hours ahead of Paris.", "Lima is 2 hours behind Denver and 1
 * hour behind Boston.", "Oslo and Rome have the same time."; undefined for
 * fewer than two.
 */
export function hoursBetween(read: readonly ReadPlace[]): string | undefined {
  if (read.length < 2) return undefined;
  const [first, ...others] = read;
  const offset = (each: ReadPlace) => offsetMinutes(each.time_zone, new Date(each.iso));
  const name = (each: ReadPlace) => asWritten(each.place);
  const same = others.filter((other) => offset(other) === offset(first));
  const apart = others.filter((other) => offset(other) !== offset(first)).map((other) => {
    const minutes = offset(first) - offset(other);
    return `${duration(Math.abs(minutes))} ${minutes > 0 ? "ahead of" : "behind"} ${name(other)}`;
  });
  const parts = [
    ...(apart.length > 0 ? [`${name(first)} is ${listed(apart)}`] : []),
    ...(same.length > 0 ? [`${listed([name(first), ...same.map(name)])} have the same time`] : []),
  ];
  return `${parts.join("; ")}.`;
}

/** "8 hours", "1 hour", "5 hours 30 minutes". */
function duration(minutes: number): string {
  const hours = Math.floor(minutes / 60);
  const rest = minutes % 60;
  const h = hours > 0 ? `${hours} hour${hours === 1 ? "" : "s"}` : "";
  const m = rest > 0 ? `${rest} minutes` : "";
  return [h, m].filter(Boolean).join(" ");
}

/** "a", "a and b", "a, b and c". */
function listed(items: readonly string[]): string {
  return items.length <= 1
    ? items.join("")
    : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}

/** The zone's offset from UTC at `now`, in minutes (east positive). */
export function offsetMinutes(zone: string, now: Date): number {
  const match = /GMT(?:([+-−])(\d{1,2})(?::(\d{2}))?)?/.exec(offsetOf(zone, now));
  if (!match?.[1]) return 0;
  const minutes = Number(match[2]) * 60 + Number(match[3] ?? 0);
  return match[1] === "+" ? minutes : -minutes;
}

function offsetOf(zone: string, now: Date): string {
  const part = new Intl.DateTimeFormat("en-GB", { timeZone: zone, timeZoneName: "shortOffset" })
    .formatToParts(now).find((p) => p.type === "timeZoneName");
  return part?.value ?? zone;
}

/**
 * A place name typed all in lower case, capitalised as names are ("new york"
 * → "New York"; "la" → "LA").
 */
function asWritten(name: string): string {
  if (/\p{Lu}/u.test(name)) return name;
  // "la", "nyc": a name of two letters, or three without a vowel, is an abbreviation.
  if (/^(?:\p{L}{2}|[^aeiou\s]{3})$/u.test(name.trim())) return name.trim().toUpperCase();
  // Each word capitalised but the small ones ("Rio de Janeiro", "the Philippines"), and a last
  // word of two letters an abbreviation ("Washington DC").
  return name.replace(
    /(^|[\s/_-])(\p{L}+)/gu,
    (_, before: string, word: string, offset: number) => {
      if (SMALL_WORDS.has(word) && (before || word === "the")) return before + word;
      const last = offset + before.length + word.length === name.length && before !== "";
      if (last && word.length === 2) return before + word.toUpperCase();
      return before + word[0].toUpperCase() + word.slice(1);
    },
  );
}

const SMALL_WORDS = new Set(
  "de da do dos das di du del della la le les el al of and the on upon es y".split(" "),
);

/** A place name as the table keys it: lower case, no accents or punctuation, no leading "the". */
function placeKey(text: string): string {
  return text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase()
    .replace(/&/g, " and ").replace(/['’]/g, "").replace(/\bst\.?\s/g, "saint ").replace(
      /[^\p{L}\p{N}]+/gu,
      " ",
    )
    .trim().replace(/^the\s+/, "");
}

let table: PlaceTable | undefined;
let cities: Map<string, PlaceZone[]> | undefined;

/** The table's or Intl's zones for a place key. */
function lookup(key: string): PlaceZone[] | undefined {
  table ??= parseSections(PLACE_TABLE);
  cities ??= ianaCities();
  return table.zones.get(key) ?? cities.get(key);
}

/** Whether a place key may tell a place apart: a country or a region of the table. */
function isQualifier(key: string): boolean {
  table ??= parseSections(PLACE_TABLE);
  return table.qualifiers.has(key);
}

/** {@link PLACE_TABLE} read: each name's zones, and the names of its countries and regions. */
interface PlaceTable {
  zones: Map<string, PlaceZone[]>;
  qualifiers: Set<string>;
}

/** {@link PLACE_TABLE} as a map from each name to its zones. */
export function parseTable(text: string): Map<string, PlaceZone[]> {
  return parseSections(text).zones;
}

function parseSections(text: string): PlaceTable {
  const zones = new Map<string, PlaceZone[]>();
  const qualifiers = new Set<string>();
  let section = "";
  for (const line of text.split("\n")) {
    const heading = /^\[(\w+)\]$/.exec(line.trim());
    if (heading) section = heading[1];
    const [names, entries] = line.split(" = ");
    if (!entries) continue;
    const keys = names.split(",").map(placeKey);
    for (const key of keys) {
      if (section === "countries" || section === "regions") qualifiers.add(key);
      zones.set(
        key,
        entries.split("|").map((entry) => {
          const [zone, label] = entry.trim().split("@");
          return { zone, label: label ?? zone };
        }),
      );
    }
  }
  return { zones, qualifiers };
}

/** Zone cities that are also everyday words: a message saying them rarely means the place. */
const NOT_PLACES = new Set([
  "easter",
  "wake",
  "midway",
  "christmas",
  "stanley",
  "jersey",
  "regina",
]);
const AREAS = /^(?:Africa|America|Asia|Atlantic|Australia|Europe|Indian|Pacific)\//;

/** The cities of Intl's IANA zones ("tokyo" → Asia/Tokyo), US county zones left out. */
function ianaCities(): Map<string, PlaceZone[]> {
  const map = new Map<string, PlaceZone[]>();
  for (const zone of Intl.supportedValuesOf("timeZone")) {
    if (!AREAS.test(zone) || /^America\/(?:Indiana|Kentucky|North_Dakota)\//.test(zone)) continue;
    const key = placeKey(zone.split("/").at(-1)!.replaceAll("_", " "));
    if (!NOT_PLACES.has(key) && !map.has(key)) map.set(key, [{ zone, label: zone }]);
  }
  return map;
}

/** An IANA zone name Intl knows ("Europe/Lisbon", "asia/tokyo", "EST"), as one zone. */
function ianaZone(name: string): PlaceZone[] | undefined {
  if (!name.includes("/") && !/^[A-Z]{2,5}$/.test(name)) return undefined;
  try {
    const { timeZone } = new Intl.DateTimeFormat("en", { timeZone: name }).resolvedOptions();
    if (!name.includes("/")) return [{ zone: name, label: name }];
    // An alias keeps its own spelling (Asia/Kolkata, not the canonical Asia/Calcutta), cased as IANA does.
    const zone = timeZone.toLowerCase() === name.toLowerCase() ? timeZone : ianaCase(name);
    return [{ zone, label: zone }];
  } catch {
    return undefined;
  }
}

function ianaCase(name: string): string {
  return name.split("/").map((part) =>
    part.split("_").map((word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase())
      .join("_")
  ).join("/");
}
