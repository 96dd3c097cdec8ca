import assert from "node:assert/strict";
import { stemEnglish } from "../../shared/text/english_stemmer.ts";
import { ENGLISH_STOP_WORDS, searchTerms } from "../../shared/text/search_terms.ts";
import { sharedPglite } from "../support/pglite.ts";

Deno.test("the English stemmer joins a word's inflections as Snowball's algorithm does", () => {
  const stems = (words: string) => [...new Set(words.split(" ").map(stemEnglish))];
  assert.deepEqual(stems("consign consigned consigning consignment"), ["consign"]);
  assert.deepEqual(stems("paint painted painting paints"), ["paint"]);
  assert.deepEqual(stems("hop hopping hopped"), ["hop"]);
  assert.deepEqual(stems("add adding added"), ["add"], "no undoubling after a first a, e or o");
  assert.equal(stemEnglish("generously"), "generous");
  assert.equal(stemEnglish("universities"), "univers");
  assert.equal(stemEnglish("skies"), "sky", "an exception of the algorithm");
  assert.equal(stemEnglish("innings"), "inning", "left as it is after step 1a");
  assert.equal(stemEnglish("gas"), "gas", "no vowel before the letter before the s");
  assert.equal(stemEnglish("go"), "go", "two letters or fewer are left alone");
  assert.equal(stemEnglish("straße"), "straße", "not a lower-case ASCII word");
});

Deno.test("the English stemmer gives Postgres's english_stem lexemes", async () => {
  const sql = await sharedPglite();
  const words = ("running ran relational conditional rational valency hesitancy digitizer " +
    "conformabli radicalli differentli vileli analogousli vietnamization predication operator " +
    "feudalism decisiveness hopefulness callousness formaliti sensitiviti sensibiliti " +
    "triplicate formative formalize electriciti electrical hopeful goodness revival allowance " +
    "inference airliner gyroscopic adjustable defensible irritant replacement adjustment " +
    "dependent adoption homologou communism activate angulariti homologous effective bowdlerize " +
    "probate rate cease controll roll fluently happily dying agreed feed disabled matting " +
    "mating meeting milling messing meetings caress ponies ties cats " +
    "generate community arsenic").split(" ");
  const rows = await sql.query<{ w: string; l: string[] | null }>(
    "select w, ts_lexize('english_stem', w) as l from unnest($1::text[]) w",
    [words],
  );
  const disagreements = rows.filter((r) => r.l !== null && r.l[0] !== stemEnglish(r.w))
    .map((r) => `${r.w}: postgres ${r.l![0]}, here ${stemEnglish(r.w)}`);
  assert.deepEqual(disagreements, []);
});

Deno.test("search terms leave out English stop words and are stemmed", () => {
  assert.deepEqual(searchTerms("What did Ana paint for the shelter's opening?"), [
    "ana",
    "paint",
    "shelter",
    "open",
  ]);
  assert.ok(ENGLISH_STOP_WORDS.has("which") && !ENGLISH_STOP_WORDS.has("paint"));
});
