import assert from "node:assert/strict";
import tools from "../../functions/mcp-loop/tools.ts";
import { PLACE_TABLE } from "../../shared/places/place_table.js";
import {
  hoursBetween,
  parseTable,
  resolvePlace,
  timesIn,
} from "../../shared/places/place_time_zones.ts";
import { ANONYMOUS } from "../../shared/ports.ts";

const zonesOf = (text: string) => resolvePlace(text)?.zones.map(({ zone }) => zone);

Deno.test("every zone of the place table is an IANA zone Intl knows", () => {
  const supported = new Set(Intl.supportedValuesOf("timeZone"));
  const table = parseTable(PLACE_TABLE);
  assert.ok(table.size > 300, `${table.size} names`);
  for (const [name, zones] of table) {
    assert.ok(zones.length > 0, name);
    for (const { zone, label } of zones) {
      // Intl canonicalises some names (Asia/Kolkata → Asia/Calcutta); the canonical one must be listed.
      const canonical =
        new Intl.DateTimeFormat("en", { timeZone: zone }).resolvedOptions().timeZone;
      assert.ok(supported.has(canonical), `${name}: ${zone} (${canonical})`);
      assert.ok(label.length > 0, `${name}: ${zone} has a label`);
    }
  }
});

Deno.test("countries, their other names and major cities resolve to their time zone", () => {
  assert.deepEqual(zonesOf("India"), ["Asia/Kolkata"]);
  assert.deepEqual(zonesOf("the Netherlands"), ["Europe/Amsterdam"]);
  assert.deepEqual(zonesOf("Holland"), ["Europe/Amsterdam"]);
  assert.deepEqual(zonesOf("Côte d’Ivoire"), ["Africa/Abidjan"]);
  assert.deepEqual(zonesOf("UK"), ["Europe/London"]);
  assert.deepEqual(zonesOf("Bengaluru"), ["Asia/Kolkata"]);
  assert.deepEqual(zonesOf("st. petersburg"), ["Europe/Moscow"]);
  // The city of an IANA zone, found through Intl, accents and case aside.
  assert.deepEqual(zonesOf("sao paulo"), ["America/Sao_Paulo"]);
  assert.deepEqual(zonesOf("Addis Ababa"), ["Africa/Addis_Ababa"]);
  // IANA names, aliases keeping their modern spelling.
  assert.deepEqual(zonesOf("Europe/Lisbon"), ["Europe/Lisbon"]);
  assert.deepEqual(zonesOf("asia/kolkata"), ["Asia/Kolkata"]);
  assert.deepEqual(zonesOf("utc"), ["UTC"]);
});

Deno.test("a country spanning several zones, or a name several places share, is ambiguous", () => {
  const states = resolvePlace("United States");
  assert.ok(states && states.zones.length > 3);
  assert.ok(states.zones.some(({ label }) => label === "Chicago"));
  assert.deepEqual(zonesOf("Springfield"), ["America/Chicago", "America/New_York"]);
  assert.equal(resolvePlace("Russia")!.zones.length, 6);
  // A word after the name tells its zones apart.
  assert.deepEqual(zonesOf("Springfield, Massachusetts"), ["America/New_York"]);
  assert.deepEqual(zonesOf("Valencia Venezuela"), ["America/Caracas"]);
  assert.deepEqual(zonesOf("Lisbon, Portugal"), ["Europe/Lisbon"]);
  // A region of the table tells a place apart too; another city does not: that is two places.
  assert.deepEqual(zonesOf("Houston, Texas"), ["America/Chicago"]);
  assert.equal(resolvePlace("Lyon, Marseille"), undefined);
  assert.equal(resolvePlace("Osaka Kyoto"), undefined);
  assert.deepEqual(zonesOf("Kyoto, Japan"), ["Asia/Tokyo"]);
  assert.deepEqual(zonesOf("Quebec"), ["America/Toronto"]);
  // A city's own zone is no label: "Florence, Rome" is two places.
  assert.equal(resolvePlace("Florence, Rome"), undefined);
  // A known name in a region that has no such city is a town there.
  assert.deepEqual(zonesOf("Naples, Florida"), ["America/New_York"]);
  assert.deepEqual(zonesOf("Perth, Scotland"), ["Europe/London"]);
  // Two countries, or two regions, are two places.
  assert.equal(resolvePlace("Kenya, Egypt"), undefined);
  assert.equal(resolvePlace("Alaska Hawaii"), undefined);
});

Deno.test("words that are not places are refused, so a schema using this is selective", () => {
  for (
    const text of ["the", "zzqxv", "in Peru", "it", "is", "time", "Easter", "", "x".repeat(80)]
  ) {
    assert.equal(resolvePlace(text), undefined, text);
  }
  assert.equal(resolvePlace("us"), undefined, "a pronoun");
  // A connective after a place is no part of it, though a zone's label holds the word.
  for (const text of ["Springfield and", "Portland and", "Hyderabad in"]) {
    assert.equal(resolvePlace(text), undefined, text);
  }
  assert.deepEqual(zonesOf("US")?.[0], "America/New_York");
});

Deno.test("the answer names the place and its zone, or each zone of an ambiguous one", () => {
  const now = new Date(Date.UTC(2030, 0, 15, 12, 0));
  // Intl's wording of a date differs a little between ICU releases (a comma, "at").
  const peru = timesIn(resolvePlace("Peru")!, now);
  assert.match(
    peru.summary,
    /^In Peru \(America\/Lima\) it is Tuesday,? 15 January 2030.* 07:00 GMT-5\.$/,
  );
  const split = timesIn(resolvePlace("Mongolia")!, now);
  assert.match(
    split.summary,
    /^"Mongolia" has more than one time zone: it is Tuesday,? 20:00 in Ulaanbaatar and Tuesday,? 19:00 in Hovd\. Say which one you mean for a single answer\.$/,
  );
  assert.deepEqual(split.times.map(({ time_zone }) => time_zone), [
    "Asia/Ulaanbaatar",
    "Asia/Hovd",
  ]);
});

Deno.test("get_current_time takes a country, says when a place is ambiguous, and refuses an unknown one", async () => {
  const tool = tools.find((t) => t.name === "get_current_time")!;
  const run = async (time_zone?: string) => {
    const args = tool.argsSchema.parse(time_zone === undefined ? {} : { time_zone });
    const signal = new AbortController().signal;
    return await tool.run({ args, context: {}, results: [], signal, caller: ANONYMOUS }) as {
      place: string;
      time_zone: string;
      summary: string;
    };
  };
  const kenya = await run("Kenya");
  assert.equal(kenya.time_zone, "Africa/Nairobi");
  assert.match(kenya.summary, /^In Kenya \(Africa\/Nairobi\) it is /);
  assert.match((await run("Australia")).summary, /more than one time zone: .* in Perth\./);
  assert.match((await run()).summary, /^In UTC it is .*Name a city or a country/);
  assert.equal(tool.argsSchema.safeParse({ time_zone: "Atlantis" }).success, false);
});

Deno.test("the hours between places read at one time, the first against each other", () => {
  const at = (place: string, time_zone: string, iso = "2026-01-15T12:00:00Z") => ({
    place,
    time_zone,
    iso,
  });
  assert.equal(
    hoursBetween([at("Seoul", "Asia/Seoul"), at("Madrid", "Europe/Madrid")]),
    "Seoul is 8 hours ahead of Madrid.",
  );
  // Half and quarter hours, and a place behind.
  assert.equal(
    hoursBetween([at("Delhi", "Asia/Kolkata"), at("Kathmandu", "Asia/Kathmandu")]),
    "Delhi is 15 minutes behind Kathmandu.",
  );
  assert.equal(
    hoursBetween([at("Adelaide", "Australia/Adelaide"), at("Perth", "Australia/Perth")]),
    "Adelaide is 2 hours 30 minutes ahead of Perth.",
  );
  // In July, daylight saving moves Madrid (not Seoul): an hour less apart.
  assert.equal(
    hoursBetween([
      at("Seoul", "Asia/Seoul", "2026-07-15T12:00:00Z"),
      at("Madrid", "Europe/Madrid", "2026-07-15T12:00:00Z"),
    ]),
    "Seoul is 7 hours ahead of Madrid.",
  );
  assert.equal(
    hoursBetween([
      at("Lima", "America/Lima"),
      at("Denver", "America/Denver"),
      at("Quito", "America/Guayaquil"),
    ]),
    "Lima is 2 hours ahead of Denver; Lima and Quito have the same time.",
  );
  assert.equal(hoursBetween([at("Oslo", "Europe/Oslo")]), undefined);
});
