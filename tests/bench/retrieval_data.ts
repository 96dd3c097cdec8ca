/**
 * The public retrieval benchmarks' data, read from a folder named on the
 * command line (`deno task bench retrieval --data DIR`): MetaTool's tools and
 * labelled queries, and LoCoMo's conversations with their questions. Nothing
 * of it is kept in the project (LoCoMo is CC BY-NC 4.0); the files' shape is
 * described in docs/benchmarks.md#retrieval.
 */
import { join } from "node:path";
import type { CatalogTool } from "../support/tool_catalog.ts";

/** A query labelled with the tool(s) it needs (registered names, `<server>__<tool>`). */
export interface ToolQuery {
  id: string;
  kind: "single" | "multi";
  text: string;
  tools: string[];
}

/** One conversation turn: its id (`D<session>:<turn>`), speaker, text and shared image's caption. */
export interface Turn {
  id: string;
  speaker: string;
  text: string;
  caption: string | null;
}

/** A question with its category (1 multi-hop … 5 adversarial) and the turns that answer it. */
export interface Question {
  text: string;
  category: number;
  evidence: string[];
}

/** One LoCoMo conversation. */
export interface Conversation {
  id: string;
  turns: Turn[];
  questions: Question[];
}

/** Everything the benchmark reads. */
export interface RetrievalData {
  tools: CatalogTool[];
  queries: ToolQuery[];
  conversations: Conversation[];
  categories: Record<string, string>;
}

/** The file names the folder must hold. */
export const DATA_FILES = ["metatool-catalog.json", "metatool-queries.json", "locomo-sample.json"];

/** Reads the three files of `dir`; throws a message saying what to pass when one is missing. */
export function readRetrievalData(dir: string | undefined): RetrievalData {
  if (!dir) throw new Error(usage("no --data folder was given"));
  const read = (name: string) => {
    try {
      return JSON.parse(Deno.readTextFileSync(join(dir, name)));
    } catch (error) {
      throw new Error(usage(`could not read ${join(dir, name)}: ${(error as Error).message}`));
    }
  };
  const catalog = read(DATA_FILES[0]) as {
    servers: { name: string; tools: Omit<CatalogTool, "server">[] }[];
  };
  const queries = read(DATA_FILES[1]) as { queries: ToolQuery[] };
  const locomo = read(DATA_FILES[2]) as {
    categories: Record<string, string>;
    conversations: {
      id: string;
      turns: [string, string, string, string | null][];
      qa: [string, number, string[]][];
    }[];
  };
  return {
    tools: catalog.servers.flatMap((server) =>
      server.tools.map((tool) => ({ ...tool, server: server.name }))
    ),
    queries: queries.queries,
    categories: locomo.categories,
    conversations: locomo.conversations.map((c) => ({
      id: c.id,
      turns: c.turns.map(([id, speaker, text, caption]) => ({ id, speaker, text, caption })),
      questions: c.qa.map(([text, category, evidence]) => ({ text, category, evidence })),
    })),
  };
}

function usage(problem: string): string {
  return `The retrieval benchmark reads public data from a folder: ${problem}. Run ` +
    `\`deno task bench retrieval --data DIR\` with a folder holding ${DATA_FILES.join(", ")} ` +
    "(docs/benchmarks.md#retrieval says where they come from and what each holds).";
}
