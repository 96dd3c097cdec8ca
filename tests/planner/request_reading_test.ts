import assert from "node:assert/strict";
import { readMessage } from "../../shared/planner/request_reading.ts";

const kind = (message: string, verbs: string[] = []) =>
  readMessage(message, { verbs: new Set(verbs) }).kind;
const verbs = (message: string) =>
  readMessage(message).clauses.flatMap((clause) => clause.verb ? [clause.verb] : []);

Deno.test("a request opens with a verb, after any polite or indirect opening", () => {
  for (
    const message of [
      "Start a plan loop",
      "please start a plan loop",
      "Could you please go ahead and start a plan loop?",
      "ok, can you start a plan loop",
      "I'd like you to start a plan loop",
      "let's start a plan loop",
      "I want to start a plan loop",
    ]
  ) {
    assert.deepEqual(verbs(message), ["start"], message);
    assert.equal(kind(message), "request", message);
  }
});

Deno.test("clauses split at a verb after 'and' or 'then', not inside a noun phrase", () => {
  assert.deepEqual(verbs("Open a spec loop and then record 64 for it"), ["open", "record"]);
  assert.deepEqual(verbs("create a loop, then score it 70"), ["create", "score"]);
  const reading = readMessage("show the time in Bosnia and Herzegovina");
  assert.equal(reading.clauses.length, 1);
  assert.deepEqual(reading.clauses[0].words.slice(-3), ["bosnia", "and", "herzegovina"]);
});

Deno.test("casual wording is not a request: a question, a statement, a greeting, a fragment", () => {
  assert.equal(kind("Can you help me organise my holidays?"), "question");
  assert.equal(kind("do you remember my name?"), "question");
  assert.equal(kind("how is the spec loop going"), "question");
  assert.equal(kind("I started a loop yesterday"), "statement");
  assert.equal(kind("My flight to Seoul leaves at nine"), "statement");
  assert.equal(kind("we should plan the sprint"), "statement");
  assert.equal(kind("I need the time in Lima"), "fragment", "a wish, not a statement");
  assert.equal(kind("I'd like the time in Oslo"), "fragment", "a wish too");
  assert.equal(kind("I would like the date in Quito"), "fragment");
  assert.equal(kind("I'd really like the time in Riga"), "fragment", "a word between");
  assert.equal(kind("I like oolong tea"), "statement", "liking is not wanting");
  assert.equal(kind("thanks a lot!"), "greeting");
  assert.equal(kind("Good morning"), "greeting");
  assert.equal(kind("time in Nairobi"), "fragment");
  assert.equal(kind("don't start a loop"), "fragment", "a negation asks for nothing");
});

Deno.test("a verb only an offered tool answers to makes a request", () => {
  assert.equal(kind("escalate invoice 42"), "fragment");
  assert.equal(kind("escalate invoice 42", ["escalate"]), "request");
  assert.equal(kind("please reindex the catalogue", ["reindex"]), "request");
});
