/**
 * Hybrid retrieval, run against every conversation store (the fake, the SQL
 * store on PGlite and on Postgres): what only full text finds, what only the
 * vectors find, both fused by reciprocal rank, and questions that must not
 * crowd out the statements that answer them. The vectors are given, as an
 * embedder would place the texts: one that does not see identifiers, and
 * that places a paraphrase near its statement.
 */
import assert from "node:assert/strict";
import { ANONYMOUS } from "../../shared/ports.ts";
import {
  load,
  say,
  type StoreFactory,
  type SuiteOptions,
  suiteTest,
  user,
} from "./conversation_store_suite.ts";

/** A unit vector mostly along `axis`, tilted towards `towards` (cosine with it: `tilt`). */
function direction(axis: number, { towards, tilt = 0 }: { towards?: number; tilt?: number } = {}) {
  const v = new Array(16).fill(0);
  v[axis] = Math.sqrt(1 - tilt * tilt);
  if (towards !== undefined) v[towards] = tilt;
  return v;
}

const session = () => `hybrid-${crypto.randomUUID()}`;
const contents = (matches: { content: string }[]) => matches.map((m) => m.content);

/** Registers the suite's tests under `name`. */
export function hybridRetrievalSuite(
  name: string,
  makeStore: StoreFactory,
  options: SuiteOptions = {},
): void {
  const test = suiteTest(options);

  test(`${name}: an identifier the vectors miss is found by full text, though the question has other words`, async () => {
    const store = await makeStore({ recentLimit: 0 });
    const s = session();
    await say(store, ANONYMOUS, s, "LIN-4417 was deployed to production on Tuesday", undefined, {
      embedding: direction(0),
    });
    await say(store, ANONYMOUS, s, "I am on it, any time on Monday", undefined, {
      embedding: direction(1),
    });
    await say(store, ANONYMOUS, s, "The quarterly review is next week", undefined, {
      embedding: direction(2),
    });
    const { semanticMatches } = await load(
      store,
      ANONYMOUS,
      s,
      "any news on LIN-4417?",
      undefined,
      direction(5),
    );
    assert.equal(semanticMatches[0]?.content, "LIN-4417 was deployed to production on Tuesday");
    assert.deepEqual(semanticMatches[0].foundBy, ["full_text"]);
    assert.ok((semanticMatches[0].similarity ?? 1) < 0.3, "below the vectors' threshold");
    assert.ok(!contents(semanticMatches).includes("The quarterly review is next week"));
  });

  test(`${name}: a paraphrase with no word in common is found by the vectors`, async () => {
    const store = await makeStore({ recentLimit: 0 });
    const s = session();
    await say(store, ANONYMOUS, s, "My car is a blue Volvo", undefined, {
      embedding: direction(3, { towards: 4, tilt: 0.2 }),
    });
    await say(store, ANONYMOUS, s, "Lunch is catered on Thursdays", undefined, {
      embedding: direction(6),
    });
    const { semanticMatches } = await load(
      store,
      ANONYMOUS,
      s,
      "what vehicle do I drive?",
      undefined,
      direction(3, { towards: 5, tilt: 0.3 }),
    );
    assert.deepEqual(contents(semanticMatches), ["My car is a blue Volvo"]);
    assert.deepEqual(semanticMatches[0].foundBy, ["vector"]);
    assert.ok((semanticMatches[0].similarity ?? 0) > 0.8);
  });

  test(`${name}: a message both rankings find is fused above those one finds, with both scores`, async () => {
    const store = await makeStore({ recentLimit: 0, rrfK: 60 });
    const s = session();
    await say(store, ANONYMOUS, s, "Payment for the order came late", undefined, {
      embedding: direction(7, { towards: 8, tilt: 0.4 }),
    });
    await say(store, ANONYMOUS, s, "The invoice INV-0042 is overdue", undefined, {
      embedding: direction(0),
    });
    await say(store, ANONYMOUS, s, "INV-0042 was paid by bank transfer", undefined, {
      embedding: direction(7, { towards: 9, tilt: 0.1 }),
    });
    const { semanticMatches } = await load(
      store,
      ANONYMOUS,
      s,
      "was INV-0042 paid?",
      undefined,
      direction(7, { towards: 9, tilt: 0.3 }),
    );
    assert.deepEqual(contents(semanticMatches), [
      "INV-0042 was paid by bank transfer",
      "The invoice INV-0042 is overdue",
      "Payment for the order came late",
    ]);
    assert.deepEqual(semanticMatches.map((m) => m.foundBy), [
      ["full_text", "vector"],
      ["full_text"],
      ["vector"],
    ]);
    // Ranked first on both sides: 1/61 + 1/61.
    assert.ok(Math.abs(semanticMatches[0].score - 2 / 61) < 1e-9);
    // Second on one side each, 1/62: the later message first.
    assert.ok(semanticMatches[1].score < semanticMatches[0].score);
  });

  test(`${name}: earlier questions do not crowd out the statement that answers them`, async () => {
    const store = await makeStore({ recentLimit: 0, matchCount: 3 });
    const s = session();
    await say(store, ANONYMOUS, s, "LIN-4417 shipped on Tuesday", undefined, {
      embedding: direction(0, { towards: 1, tilt: 0.5 }),
    });
    for (let i = 0; i < 6; i++) {
      await say(store, ANONYMOUS, s, "any news on LIN-4417?", undefined, {
        embedding: direction(1),
      });
    }
    const { semanticMatches } = await load(
      store,
      ANONYMOUS,
      s,
      "any news on LIN-4417?",
      undefined,
      direction(1),
    );
    assert.equal(semanticMatches.length, 3);
    assert.equal(semanticMatches[0].content, "LIN-4417 shipped on Tuesday");
    assert.deepEqual(semanticMatches[0].foundBy, ["full_text", "vector"]);
    assert.ok(semanticMatches.slice(1).every((m) => m.content === "any news on LIN-4417?"));
  });

  test(`${name}: full text finds messages of another embedding model, without a similarity`, async () => {
    const store = await makeStore({ recentLimit: 0 });
    const s = session();
    await say(store, ANONYMOUS, s, "The staging password rotates on ERR-503 alerts", undefined, {
      model: "old-model",
    });
    const { semanticMatches } = await load(store, ANONYMOUS, s, "what do we do on ERR-503?");
    assert.deepEqual(contents(semanticMatches), [
      "The staging password rotates on ERR-503 alerts",
    ]);
    assert.equal(semanticMatches[0].similarity, undefined);
    assert.deepEqual(semanticMatches[0].foundBy, ["full_text"]);
  });

  test(`${name}: a weight of 0 leaves that ranking out`, async () => {
    const answer = async (options: { fullTextWeight?: number; semanticWeight?: number }) => {
      const store = await makeStore({ recentLimit: 0, ...options });
      const s = session();
      await say(store, ANONYMOUS, s, "Ticket OPS-77 is assigned to Dana", undefined, {
        embedding: direction(0),
      });
      await say(store, ANONYMOUS, s, "Dana owns the deployment pipeline", undefined, {
        embedding: direction(2, { towards: 3, tilt: 0.1 }),
      });
      const { semanticMatches } = await load(
        store,
        ANONYMOUS,
        s,
        "who has OPS-77?",
        undefined,
        direction(2),
      );
      return contents(semanticMatches);
    };
    assert.deepEqual(await answer({ semanticWeight: 0 }), ["Ticket OPS-77 is assigned to Dana"]);
    assert.deepEqual(await answer({ fullTextWeight: 0 }), ["Dana owns the deployment pipeline"]);
    // Each first on its own side, so equal: the later message first.
    assert.deepEqual(await answer({}), [
      "Dana owns the deployment pipeline",
      "Ticket OPS-77 is assigned to Dana",
    ]);
  });

  test(`${name}: the offline embedders' vectors are left out of recall unless their weight is set`, async () => {
    const answer = async (options: { semanticWeights?: Record<string, number> }) => {
      const store = await makeStore({ recentLimit: 0, ...options });
      const s = session();
      await say(store, ANONYMOUS, s, "Ticket OPS-77 is assigned to Dana", undefined, {
        embedding: direction(0),
        model: "hashing-v1",
      });
      await say(store, ANONYMOUS, s, "Dana owns the deployment pipeline", undefined, {
        embedding: direction(2),
        model: "hashing-v1",
      });
      const { semanticMatches } = await load(
        store,
        ANONYMOUS,
        s,
        "who has OPS-77?",
        "hashing-v1",
        direction(2),
      );
      return semanticMatches.map((m) => [m.content, m.foundBy]);
    };
    assert.deepEqual(await answer({}), [["Ticket OPS-77 is assigned to Dana", ["full_text"]]]);
    assert.deepEqual(await answer({ semanticWeights: {} }), [
      ["Dana owns the deployment pipeline", ["vector"]],
      ["Ticket OPS-77 is assigned to Dana", ["full_text"]],
    ]);
  });

  test(`${name}: full text stays within the caller, and spans a user's sessions with scope "user"`, async () => {
    const store = await makeStore({ recentLimit: 0, scope: "user" });
    const [alice, bob] = [user(), user()];
    const shared = session();
    await say(store, alice, shared, "My locker code is ZX-9981", undefined, {
      embedding: direction(0),
    });
    await say(store, alice, session(), "The ZX-9981 locker is on floor 3", undefined, {
      embedding: direction(1),
    });
    const forBob = await load(store, bob, shared, "what is ZX-9981?", undefined, direction(0));
    assert.deepEqual(forBob.semanticMatches, []);
    const forAnonymous = await load(store, ANONYMOUS, shared, "ZX-9981", undefined, direction(0));
    assert.deepEqual(forAnonymous.semanticMatches, []);
    const forAlice = await load(store, alice, session(), "ZX-9981?", undefined, direction(9));
    assert.deepEqual(contents(forAlice.semanticMatches).sort(), [
      "My locker code is ZX-9981",
      "The ZX-9981 locker is on floor 3",
    ]);
  });

  test(`${name}: a question full of query syntax is searched as words`, async () => {
    const store = await makeStore({ recentLimit: 0 });
    const s = session();
    await say(store, ANONYMOUS, s, "Alpha launches before beta", undefined, {
      embedding: direction(0),
    });
    const { semanticMatches } = await load(
      store,
      ANONYMOUS,
      s,
      "!alpha & (beta | 'x'':*) \\ <-> \"quoted\" or -gamma",
      undefined,
      direction(5),
    );
    assert.deepEqual(contents(semanticMatches), ["Alpha launches before beta"]);
  });

  test(`${name}: in English, other forms of a question's words are found (stemmed)`, async () => {
    const store = await makeStore({ recentLimit: 0 });
    const s = session();
    await say(store, ANONYMOUS, s, "We adopted two puppies in May", undefined, {
      embedding: direction(0),
    });
    await say(store, ANONYMOUS, s, "The weather was cold all week", undefined, {
      embedding: direction(1),
    });
    const { semanticMatches } = await load(
      store,
      ANONYMOUS,
      s,
      "when did they adopt the puppy?",
      undefined,
      direction(5),
    );
    assert.deepEqual(contents(semanticMatches), ["We adopted two puppies in May"]);
    assert.deepEqual(semanticMatches[0].foundBy, ["full_text"]);
  });

  test(`${name}: a word is as rare as all its forms: a name said in every message is common, however it was indexed`, async () => {
    const store = await makeStore({ recentLimit: 0 });
    const s = session();
    // English prose is stemmed ("Jamie" is "jami"); a short thank-you is not told as English
    // and keeps the plain form. Counted apart, the plain form looked rare.
    const messages = [
      "Jamie and I cooked dinner at home tonight",
      "Thanks, Jamie!",
      "Jamie is painting the kitchen this week",
      "I lent Jamie my old bike for the summer",
      "The trip to the coast took four hours",
      "Jamie wants to learn the guitar again",
      "We met Jamie's parents at the station",
      "Cheers Jamie",
      "Jamie was late for the movie as usual",
      "My brother planned a trip to the mountains",
    ];
    for (const [i, text] of messages.entries()) {
      await say(store, ANONYMOUS, s, text, undefined, { embedding: direction(i) });
    }
    const { semanticMatches } = await load(
      store,
      ANONYMOUS,
      s,
      "which trip did Jamie mention?",
      undefined,
      direction(15),
    );
    assert.deepEqual(contents(semanticMatches).slice(0, 2).sort(), [
      "My brother planned a trip to the mountains",
      "The trip to the coast took four hours",
    ]);
  });

  test(`${name}: a message whose neighbour holds the question's rarer words ranks above its equal`, async () => {
    const store = await makeStore({ recentLimit: 0 });
    const s = session();
    for (
      const [i, text] of [
        "I finally saw Aurora live downtown",
        "The concert was loud but wonderful",
        "My cousin moved to another city",
        "We had pasta for dinner",
        "Our school concert sold out",
      ].entries()
    ) {
      await say(store, ANONYMOUS, s, text, undefined, { embedding: direction(i) });
    }
    const { semanticMatches } = await load(
      store,
      ANONYMOUS,
      s,
      "how was the Aurora concert?",
      undefined,
      direction(9),
    );
    // Without the neighbour's share the later message would come first (equal BM25, later wins).
    assert.deepEqual(contents(semanticMatches), [
      "I finally saw Aurora live downtown",
      "The concert was loud but wonderful",
      "Our school concert sold out",
    ]);
  });

  test(`${name}: the messages two before and after lend their scores too`, async () => {
    const store = await makeStore({ recentLimit: 0 });
    const s = session();
    for (
      const [i, text] of [
        "I finally saw Aurora live downtown",
        "Which part of town",
        "The concert was loud but wonderful",
        "My cousin moved to another city",
        "Our school concert sold out",
      ].entries()
    ) {
      await say(store, ANONYMOUS, s, text, undefined, { embedding: direction(i) });
    }
    const { semanticMatches } = await load(
      store,
      ANONYMOUS,
      s,
      "how was the Aurora concert?",
      undefined,
      direction(9),
    );
    // Equal BM25 for the two concerts, and no message next to either holds a word of the
    // question: the one two after the Aurora message (and two before the other concert) comes
    // first, though the other is later.
    assert.deepEqual(contents(semanticMatches), [
      "The concert was loud but wonderful",
      "I finally saw Aurora live downtown",
      "Our school concert sold out",
    ]);
  });

  test(`${name}: in a long session of the same words, an old message with a rarer word of the question comes first`, async () => {
    const store = await makeStore({ recentLimit: 0 });
    const s = session();
    // 240 messages: past 10 x pool (pool 20 for 5 matches), where the SQL store scores only
    // the messages around the centres. The Oslo message is older than the latest 2 x pool,
    // and every message holds the question's common words ("status", "update").
    await say(
      store,
      ANONYMOUS,
      s,
      "Status update 0 on the project: the Oslo office opens",
      undefined,
      {
        embedding: direction(1),
      },
    );
    for (let i = 1; i < 240; i++) {
      await say(store, ANONYMOUS, s, `Status update ${i} on the project`, undefined, {
        embedding: direction(1),
      });
    }
    const { semanticMatches } = await load(
      store,
      ANONYMOUS,
      s,
      "any status update on the Oslo office?",
      undefined,
      direction(5),
    );
    // Then the two after it, by the share they take of its score, and the latest messages
    // that have two neighbours on each side (the same score; later first).
    assert.deepEqual(contents(semanticMatches), [
      "Status update 0 on the project: the Oslo office opens",
      "Status update 2 on the project",
      "Status update 1 on the project",
      "Status update 237 on the project",
      "Status update 236 on the project",
    ]);
  });
}
