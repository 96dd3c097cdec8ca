/**
 * A request's words as tool search scores them: its content words, and at
 * half weight the words tools tend to use for the same thing. Tool names are
 * mostly verb_noun (`create_issue`, `list_directory`), and people ask with
 * other verbs ("open an issue", "what's in my folder") and abbreviations
 * ("PR 45"): the table below is general vocabulary of actions and of
 * software objects, not any one server's.
 */
import { searchTerms } from "../text/search_terms.ts";
import { tokenize } from "../text/words.ts";

/** A term of the query and how much it counts. */
export interface QueryTerm {
  term: string;
  weight: number;
}

/** Words people use → words tool names and descriptions use (both as the user would type them). */
const RELATED: Record<string, string> = {
  open: "create new",
  new: "create",
  add: "create",
  make: "create",
  file: "create",
  raise: "create",
  start: "create run",
  show: "get list read view",
  see: "get list read",
  view: "get read",
  read: "get",
  fetch: "get",
  what: "get list",
  whats: "get list",
  which: "list",
  who: "list users members",
  describe: "get details",
  explain: "get details",
  summarise: "get details",
  summarize: "get details",
  find: "search list",
  look: "search get",
  lookup: "search get",
  change: "update edit",
  edit: "update",
  modify: "update edit",
  rename: "update title name",
  set: "update",
  mark: "update state",
  close: "update state",
  reopen: "update state",
  remove: "delete",
  drop: "delete",
  forget: "delete",
  erase: "delete",
  tell: "post send message",
  post: "send message",
  send: "post message",
  notify: "post message",
  say: "post message",
  reply: "comment thread",
  note: "comment add",
  rerun: "run trigger",
  trigger: "run",
  approve: "review",
  save: "write create",
  store: "write create",
  remember: "create add",
};

/** Abbreviations → what tools call the same thing (counted as the word itself). */
const SAME: Record<string, string> = {
  pr: "pull request",
  prs: "pull request",
  mr: "merge request",
  repo: "repository",
  repos: "repository",
  folder: "directory",
  dir: "directory",
  db: "database",
  docs: "documentation",
  doc: "documentation",
  msg: "message",
  dm: "message",
  ci: "workflow run job",
};

/** The query's terms with their weights (see the module doc). */
export function queryTerms(text: string): QueryTerm[] {
  const plain = text.replace(/['’]/g, "");
  const weights = new Map<string, number>();
  for (const word of searchTerms(plain)) weights.set(word, 1);
  for (const word of tokenize(plain)) {
    if (Object.hasOwn(SAME, word)) {
      for (const same of searchTerms(SAME[word])) weights.set(same, 1);
    }
  }
  const related = tokenize(plain).flatMap((word) =>
    Object.hasOwn(RELATED, word) ? searchTerms(RELATED[word]) : []
  );
  // "#ops" names a chat channel.
  if (/(^|\s)#[A-Za-z][\w-]*/.test(text)) related.push(...searchTerms("channel"));
  for (const word of related) if (!weights.has(word)) weights.set(word, 0.5);
  return [...weights].map(([term, weight]) => ({ term, weight }));
}
